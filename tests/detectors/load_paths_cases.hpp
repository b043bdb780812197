// Cases for load_paths (included by tests/test_detectors.cpp). Filled in by its author.
#pragma once
