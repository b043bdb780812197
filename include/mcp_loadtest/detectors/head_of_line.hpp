// Placeholder: the head_of_line detector (docs/detectors.md).
#pragma once
