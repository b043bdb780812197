// Cases for session_churn (included by tests/test_detectors.cpp). Filled in by its author.
#pragma once
