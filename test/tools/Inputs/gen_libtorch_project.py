#!/usr/bin/env python3
"""usage: gen_libtorch_project.py DEST N [--include-dir DIR] [--base-include DIR] [--std STD] [--I]

Generates a small LibTorch project in DEST: N translation units src/unit<i>.cpp
(a module, a training loop, checkpoint loading; every third file loads without
a device, every fourth has an unused variable for -Wall) and
build/compile_commands.json as CMake would write it for find_package(Torch)
(-isystem for the LibTorch headers, or -I with --I, as hand-written Makefiles
do). --base-include adds LibTorch's other include directory (a torch wheel's
torch/include, which Debian's /usr/include already is), --std the language standard
(default gnu++17). Used by the PCH equivalence test and by the benchmark in
docs/integration/run-torch-tidy.md.
"""
import json
import os
import sys

UNIT = """\
// Generated unit {i}.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace unit{i} {{

struct Net : torch::nn::Module {{
  Net()
      : fc1(register_module("fc1", torch::nn::Linear({w}, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 4))) {{}}
  torch::Tensor forward(torch::Tensor x) {{
    return fc2->forward(torch::relu(fc1->forward(x)));
  }}
  torch::nn::Linear fc1{{nullptr}}, fc2{{nullptr}};
}};

double train_epoch(Net &net, torch::optim::SGD &optimizer,
                   const std::vector<torch::Tensor> &batches) {{
  double total = 0;
  for (const auto &batch : batches) {{
    optimizer.zero_grad();
    torch::Tensor out = net.forward(batch);
    torch::Tensor loss = torch::mse_loss(out, torch::zeros_like(out));
    loss.backward();
    optimizer.step();
    total += loss.item<double>();
  }}
{unused}  return batches.empty() ? 0.0 : total / batches.size();
}}

std::vector<torch::Tensor> restore(const std::string &path) {{
  std::vector<torch::Tensor> tensors;
  torch::load(tensors, path{device});
  return tensors;
}}

}} // namespace unit{i}
"""


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    def option(name, default):
        if name not in argv:
            return default
        value = argv[argv.index(name) + 1]
        args.remove(value)
        return value
    include = option("--include-dir", "/usr/include/torch/csrc/api/include")
    base = option("--base-include", None)
    std = option("--std", "gnu++17")
    dest, n = os.path.abspath(args[0]), int(args[1])
    inc_flags = []
    for d in ([base] if base else []) + [include]:
        inc_flags += ["-I" + d] if "--I" in argv else ["-isystem", d]
    os.makedirs(os.path.join(dest, "src"), exist_ok=True)
    os.makedirs(os.path.join(dest, "build"), exist_ok=True)
    db = []
    for i in range(n):
        path = os.path.join(dest, "src", "unit%d.cpp" % i)
        with open(path, "w") as f:
            f.write(UNIT.format(i=i, w=8 + i,
                                device="" if i % 3 == 0 else ", torch::kCPU",
                                unused="  int unused = 0;\n" if i % 4 == 1 else ""))
        db.append({"directory": os.path.join(dest, "build"), "file": path,
                   "arguments": ["/usr/bin/c++", "-D_GLIBCXX_USE_CXX11_ABI=1"] + inc_flags +
                                ["-O2", "-DNDEBUG", "-Wall", "-std=" + std,
                                 "-o", "CMakeFiles/app.dir/src/unit%d.cpp.o" % i, "-c", path]})
    with open(os.path.join(dest, "build", "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=2)
    with open(os.path.join(dest, ".clang-tidy"), "w") as f:
        f.write("Checks: '-*,torch-*,clang-diagnostic-*'\n")


if __name__ == "__main__":
    main(sys.argv[1:])
