// Allocator settings for the processes that run loops (`run`, `worker`).
#ifndef NOVELTYGRID_CLI_MALLOC_TUNING_H_
#define NOVELTYGRID_CLI_MALLOC_TUNING_H_

namespace noveltygrid::cli {

// When the binary runs on jemalloc (NOVELTYGRID_JEMALLOC) and MALLOC_CONF does not say otherwise, pages
// freed by the loops go back to the system at once (dirty_decay_ms 0, in every arena) instead of after
// jemalloc's default 10 s: a worker's loops free a prompt, a request and a reply at every iteration, and
// kept pages were ~4 KiB per loop in flight at 2,048 loops with no measurable CPU saved by keeping them
// (BENCHMARKS.md, one worker at 2,048 loops). True when applied; false without jemalloc, with
// MALLOC_CONF set, or when the decay is not jemalloc's default (set by /etc/malloc.conf, say): then
// those settings stand.
bool ReturnFreedPagesPromptly();

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_MALLOC_TUNING_H_
