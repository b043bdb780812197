// Placeholder: the payload_sweep detector (docs/detectors.md).
#pragma once
