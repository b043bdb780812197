// Placeholder: the cancellation detector (docs/detectors.md).
#pragma once
