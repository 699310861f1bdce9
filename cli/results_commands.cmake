# Included from cli/CMakeLists.txt: the subcommands that read and write results folders
# (import, export, repartition, report, correlate), as a library so tests can call them without the binary. repartition
# builds a worker's model stack for the model-backed partitioners (with the simulated family registered).
add_library(noveltygrid_cli_results
  ${CMAKE_CURRENT_LIST_DIR}/export_command.cc
  ${CMAKE_CURRENT_LIST_DIR}/correlate_command.cc
  ${CMAKE_CURRENT_LIST_DIR}/import_command.cc
  ${CMAKE_CURRENT_LIST_DIR}/leaderboard_flags.cc
  ${CMAKE_CURRENT_LIST_DIR}/noveltybench_flags.cc
  ${CMAKE_CURRENT_LIST_DIR}/repartition_command.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_command.cc
)
target_link_libraries(noveltygrid_cli_results
  PUBLIC noveltygrid_cli_args noveltygrid_report noveltygrid_report_reader noveltygrid_benchmarks noveltygrid_config
         noveltygrid_common
  PRIVATE noveltygrid_correlate noveltygrid_worker noveltygrid_models noveltygrid_noveltybench noveltygrid_storage noveltygrid_sim
          noveltygrid_warnings)
