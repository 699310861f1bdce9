// Allocator settings for the processes that run loops (`run`, `worker`).
#ifndef NOVELTYGRID_CLI_MALLOC_TUNING_H_
#define NOVELTYGRID_CLI_MALLOC_TUNING_H_

namespace noveltygrid::cli {

// How long jemalloc keeps a freed page before it returns it to the system (dirty_decay_ms).
inline constexpr long kFreedPageDecayMs = 100;

// When the binary runs on jemalloc (NOVELTYGRID_JEMALLOC) and MALLOC_CONF does not say otherwise, pages
// freed by the loops go back to the system about kFreedPageDecayMs later, as their arena is next used
// (in every arena), instead of after jemalloc's default 10 s: a worker's loops free a prompt, a request
// and a reply at every iteration, and pages kept 10 s were ~4 KiB per loop in flight at 2,048 loops. Not
// at once (0, until 2026-12-05): then every freed extent cost a madvise, whose TLB flush is expensive
// under a hypervisor, and the next allocation a page fault per page (the figures: BENCHMARKS.md, one
// worker at 2,048 loops). True when applied; false without jemalloc, with MALLOC_CONF set, or when the
// decay is not jemalloc's default (set by /etc/malloc.conf, say): then those settings stand.
bool ReturnFreedPagesPromptly();

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_MALLOC_TUNING_H_
