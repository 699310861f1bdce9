# noveltygrid_link_jemalloc(TARGET): links TARGET with jemalloc when NOVELTYGRID_JEMALLOC is on. Processes
# that allocate on some threads and free on others at high rates (a worker with thousands of loops, the
# coordinator, the load generator's fake workers) keep far less memory and spend less CPU in malloc
# than with glibc's per-thread arenas (BENCHMARKS.md).
function(noveltygrid_link_jemalloc target)
  if(NOT NOVELTYGRID_JEMALLOC)
    return()
  endif()
  find_library(NOVELTYGRID_JEMALLOC_LIBRARY NAMES jemalloc)
  if(NOT NOVELTYGRID_JEMALLOC_LIBRARY)
    message(FATAL_ERROR "NOVELTYGRID_JEMALLOC is on but libjemalloc is missing: install libjemalloc-dev "
                        "(scripts/setup.sh does) or configure with -DNOVELTYGRID_JEMALLOC=OFF")
  endif()
  target_link_libraries(${target} PRIVATE ${NOVELTYGRID_JEMALLOC_LIBRARY})
endfunction()
