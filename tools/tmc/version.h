// The version printed by `tmc --version`.
#pragma once

namespace tmc::driver {
inline constexpr const char* kTmcVersion = "0.1.0";
}
