// Cases for cross_talk (included by tests/test_detectors.cpp). Filled in by its author.
#pragma once
