// Placeholder: the session_churn detector (docs/detectors.md).
#pragma once
