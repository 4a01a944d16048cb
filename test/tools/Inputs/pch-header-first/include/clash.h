// An include guard named like a word of LibTorch's headers (the mock's first
// comment says LibTorch): defined before them, it could configure them.
#ifndef LibTorch
#define LibTorch
#include <torch/torch.h>
#endif
