#!/usr/bin/env python3
"""What a first touch of fresh memory costs on this machine, GiB by GiB.

Maps GIB gibibytes of anonymous memory one GiB at a time and writes one byte in each 4 KiB page,
printing the time per page (the interpreter adds ~0.1 us to each). On bare metal that is the kernel's page fault and zeroing, ~1-2 us. In a
virtual machine whose host takes back the memory the guest has freed (a balloon, free page reporting),
a page the host no longer backs faults in the host as well: on the machine BENCHMARKS.md describes,
~10 us a page beyond the few GiB the guest had used recently. Processes that grow (Redis storing every
committed result in bench/coordinator_load.sh) pay that on each new page.

    python3 bench/page_fault_cost.py [GIB]     # default 8
"""
import mmap
import sys
import time

PAGE = 4096
GIB = 1 << 30


def main() -> int:
    gib = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    if gib < 1:
        print("usage: page_fault_cost.py [GIB >= 1]", file=sys.stderr)
        return 2
    held = []  # kept mapped, so each GiB is memory no earlier GiB of this run has used
    for n in range(gib):
        region = mmap.mmap(-1, GIB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_NOHUGEPAGE"):
            region.madvise(mmap.MADV_NOHUGEPAGE)  # one fault per 4 KiB page, even with THP "always"
        start = time.perf_counter()
        for offset in range(0, GIB, PAGE):
            region[offset] = 1
        elapsed = time.perf_counter() - start
        print(f"GiB {n}: {elapsed / (GIB // PAGE) * 1e9:.0f} ns per page", flush=True)
        held.append(region)
    return 0


if __name__ == "__main__":
    sys.exit(main())
