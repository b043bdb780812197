// mcp_loadtest::separate, part "load": the load engine, run(), scenarios, process sampling and leak detection.
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/impl/cancel_moment.ipp>
#include <mcp_loadtest/detail/impl/case_runner.ipp>
#include <mcp_loadtest/detail/impl/current_case.ipp>
#include <mcp_loadtest/detail/impl/evaluate_thresholds.ipp>
#include <mcp_loadtest/detail/impl/gdb_backtrace.ipp>
#include <mcp_loadtest/detail/impl/interval_recorder.ipp>
#include <mcp_loadtest/detail/impl/live_progress.ipp>
#include <mcp_loadtest/detail/impl/load_engine.ipp>
#include <mcp_loadtest/detail/impl/loop_registry.ipp>
#include <mcp_loadtest/detail/impl/machine_info.ipp>
#include <mcp_loadtest/detail/impl/mix_scenario.ipp>
#include <mcp_loadtest/detail/impl/process_tree.ipp>
#include <mcp_loadtest/detail/impl/procfs.ipp>
#include <mcp_loadtest/detail/impl/report_assembly.ipp>
#include <mcp_loadtest/detail/impl/report_evidence.ipp>
#include <mcp_loadtest/detail/impl/syscall_names.ipp>
#include <mcp_loadtest/detail/impl/thread_readings.ipp>
#include <mcp_loadtest/impl/call_mix.ipp>
#include <mcp_loadtest/impl/case_time_limit.ipp>
#include <mcp_loadtest/impl/combinators.ipp>
#include <mcp_loadtest/impl/coverage.ipp>
#include <mcp_loadtest/impl/hang_evidence.ipp>
#include <mcp_loadtest/impl/iteration.ipp>
#include <mcp_loadtest/impl/leak_detection.ipp>
#include <mcp_loadtest/impl/process_audit.ipp>
#include <mcp_loadtest/impl/process_sampling.ipp>
#include <mcp_loadtest/impl/process_status.ipp>
#include <mcp_loadtest/impl/run.ipp>
#include <mcp_loadtest/impl/schema_violation.ipp>
#include <mcp_loadtest/impl/thresholds.ipp>
#include <mcp_loadtest/impl/when_all.ipp>
#include <mcp_loadtest/impl/workload.ipp>
