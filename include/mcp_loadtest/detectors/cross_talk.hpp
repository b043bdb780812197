// Placeholder: the cross_talk detector (docs/detectors.md).
#pragma once
