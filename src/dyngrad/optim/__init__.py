"""dyngrad.optim: optimizers (SGD, Adam, AdamW, NAdam, RAdam, Adamax, RMSprop, Adagrad,
Adadelta, ASGD, LBFGS; SparseAdam for the API only: dyngrad has no sparse gradients) and lr
schedulers (``dyngrad.optim.lr_scheduler``)."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .asgd import ASGD
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "NAdam", "RAdam", "Adamax", "RMSprop", "Adagrad", "Adadelta",
           "ASGD", "LBFGS", "lr_scheduler", "SparseAdam"]
