// Cases for head_of_line (included by tests/test_detectors.cpp). Filled in by its author.
#pragma once
