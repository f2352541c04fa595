"""Regenerate dyngrad/_tensor/_method_docstrings.py, the docstrings of the Tensor methods that
are a function's method form (``x.exp()``), from the functions' docstrings (the one source;
see dyngrad/_tensor/method_docs.py).

    PYTHONPATH=src python tools/tensor_method_docs.py          # rewrite the file
    PYTHONPATH=src python tools/tensor_method_docs.py --check  # exit 1 when it is stale

Run it after changing a function's docstring or adding a Tensor method (tests/docs/
test_docstrings.py fails while the file is stale).
"""

import sys

import dyngrad
from dyngrad._tensor import method_docs


def main(argv: list[str]) -> int:
    text = method_docs.render(method_docs.generate(dyngrad))
    path = method_docs.GENERATED
    if "--check" in argv:
        stale = path.read_text() != text
        print(f"{path} is " + ("stale: rerun python tools/tensor_method_docs.py" if stale else "up to date"))
        return int(stale)
    path.write_text(text)
    print(f"wrote {path} ({len(method_docs.generate(dyngrad))} docstrings)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
