// A macro defined before the LibTorch include could configure LibTorch: the
// files that include this header first are analysed without the PCH.
#pragma once
#define PROJECT_FAST_PATH 1
#include <torch/torch.h>
