#!/usr/bin/env python3
"""Per-unit instruction profile from two callgrind outputs of the same program at two sizes.

Prints the functions whose self instructions grow most per unit: (Ir at BIG - Ir at SMALL) /
(BIG_SIZE - SMALL_SIZE), the same difference scripts/bench-instructions.sh takes for totals, so
start-up and shutdown cancel out of every line.

Usage: per-unit-profile.py [--inclusive | --by-module] SMALL.out SMALL_SIZE BIG.out BIG_SIZE [TOP [FILTER]]
(needs callgrind_annotate; --inclusive counts callees too; --by-module sums self costs per Swift
module or shared object; FILTER: a substring names must hold)
"""
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+)\s+\([ \d.]+%\)\s+(.*)$")


def self_costs(path, inclusive):
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--inclusive=" + ("yes" if inclusive else "no"), path],
        check=True, capture_output=True, text=True).stdout
    costs = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if match and "PROGRAM TOTALS" not in match.group(2):
            name = match.group(2).strip()
            costs[name] = costs.get(name, 0) + int(match.group(1).replace(",", ""))
    return costs


def group(costs):
    grouped = {}
    for name, value in costs.items():
        grouped[module(name)] = grouped.get(module(name), 0) + value
    return grouped


SWIFT_SYMBOL = re.compile(r"\$s(\d+)([A-Za-z_]\w*)")


def module(name):
    """The Swift module of a mangled symbol, else the shared object in brackets."""
    symbol = SWIFT_SYMBOL.search(name)
    if symbol:
        length = int(symbol.group(1))
        return symbol.group(2)[:length]
    obj = name.rsplit("[", 1)[-1].rstrip("]")
    return obj.rsplit("/", 1)[-1]


def main():
    arguments = sys.argv[1:]
    inclusive = arguments[0] == "--inclusive"
    by_module = arguments[0] == "--by-module"
    if inclusive or by_module:
        arguments = arguments[1:]
    small, small_size, big, big_size = arguments[0], int(arguments[1]), arguments[2], int(arguments[3])
    top = int(arguments[4]) if len(arguments) > 4 else 30
    only = arguments[5] if len(arguments) > 5 else ""
    before, after = self_costs(small, inclusive), self_costs(big, inclusive)
    units = big_size - small_size
    if by_module:
        before, after = group(before), group(after)
    rows = sorted(((after.get(n, 0) - before.get(n, 0)) / units, n) for n in set(before) | set(after))
    rows.reverse()
    total = sum(value for value, _ in rows) if not inclusive else max(value for value, _ in rows)
    print(f"{total:,.0f} instructions per unit in all")
    for value, name in [row for row in rows if only in row[1]][:top]:
        print(f"{value:10,.0f}  {100 * value / total:5.1f} %  {name[:150]}")


if __name__ == "__main__":
    main()
