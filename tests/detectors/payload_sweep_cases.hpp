// Cases for payload_sweep (included by tests/test_detectors.cpp). Filled in by its author.
#pragma once
