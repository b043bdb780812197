// run_directory cases of tests/test_reports.cpp (owner: see docs/reports.md).
#pragma once
