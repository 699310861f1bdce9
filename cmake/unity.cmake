# Unity builds (NOVELTYGRID_UNITY, on by default): each library of the project compiles its files in
# batches of up to 12 per compiler run, so the headers every file includes (gRPC's, the generated
# messages', the project's own) are parsed and their templates instantiated once per batch instead of
# once per file. The quickstart's build of the binary on 2 cores: 6 min 34 s -> 3 min 12 s (BENCHMARKS.md,
# "Time to first result on a fresh machine"). The same code is compiled; results are byte-identical.
#
# Targets stay file by file when they set UNITY_BUILD OFF themselves (protoc's files each define the same
# file-local tables; each cli/ command file has its own kUsage, Flags() and UsageError()), and so do the
# tests (targets linking GoogleTest), where many files share fixture and helper names. File-local names
# must not repeat inside a library. In a batch, a file that forgot an include may still compile: CI's
# ASan build (scripts/test.sh) is configured with -DNOVELTYGRID_UNITY=OFF to check that each file
# includes what it uses. Call noveltygrid_apply_unity() once, after the last add_subdirectory.
option(NOVELTYGRID_UNITY "Compile each library's files in batches (unity build)" ON)
set(NOVELTYGRID_UNITY_BATCH 12 CACHE STRING "Files per unity batch")

function(noveltygrid_apply_unity)
  if(NOT NOVELTYGRID_UNITY)
    return()
  endif()
  noveltygrid_targets_below(${CMAKE_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(unity ${target} UNITY_BUILD)
    get_target_property(libs ${target} LINK_LIBRARIES)
    # A target that sets UNITY_BUILD itself keeps its setting.
    if(NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$" OR libs MATCHES "GTest::"
       OR NOT unity STREQUAL "unity-NOTFOUND")
      continue()
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${NOVELTYGRID_UNITY_BATCH})
  endforeach()
endfunction()
