"""``python -m tests.op_db``: per family, how many entries each check covers, then every
entry a check skips and why."""

from __future__ import annotations

from tests.op_db import CHECKS, FAMILIES, OP_DB

if __name__ == "__main__":
    short = [c.replace("golden_", "g_") for c in CHECKS]
    print(f"{'family':15} {'entries':>7} " + " ".join(f"{c:>13}" for c in short))
    for fam, infos in FAMILIES.items():
        row = [sum(i.applies(c) for i in infos) for c in CHECKS]
        print(f"{fam:15} {len(infos):7} " + " ".join(f"{n:13}" for n in row))
    row = [sum(i.applies(c) for i in OP_DB) for c in CHECKS]
    print(f"{'all':15} {len(OP_DB):7} " + " ".join(f"{n:13}" for n in row))
    print()
    for info in OP_DB:
        for c in CHECKS:
            if c in info.skips:
                print(f"{info.family}-{info.name}: no {c}: {info.skips[c]}")
