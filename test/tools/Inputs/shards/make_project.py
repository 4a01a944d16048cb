#!/usr/bin/env python3
"""usage: make_project.py DEST MOCK_TORCH_DIR [CHAINS [LENGTH]]

Writes a project whose diagnostics depend on summaries across files, for the
mock LibTorch headers in MOCK_TORCH_DIR: DEST/src (a header and
CHAINS * (LENGTH + 2) + 2 sources, 20 by default), DEST/.clang-tidy (torch-*
only) and DEST/build/compile_commands.json.

Chain c is a training loop (loop_c.cpp) that sums its loss into a running total
and trains only through step_c_0(), which calls step_c_1(), ... in other files;
the last one calls backward() and step(). Whether the loop trains (and so
whether the total is a loss accumulated with its autograd history) is a fact
that reaches step_c_0 one round after the other, across files. The loss comes
from loss_c.cpp (a forward and a loss: a result with history). Two files need no
summaries: a loop that never clears gradients, and a clean one."""
import json
import os
import shutil
import sys

dest, mock = sys.argv[1], sys.argv[2]
chains = int(sys.argv[3]) if len(sys.argv) > 3 else 3
length = int(sys.argv[4]) if len(sys.argv) > 4 else 4
shutil.rmtree(dest, ignore_errors=True)
src = os.path.join(dest, "src")
os.makedirs(src)
os.makedirs(os.path.join(dest, "build"))
files = {}
decls = []
for c in range(chains):
    decls.append("torch::Tensor loss_%d(torch::nn::Linear &model, const torch::Tensor &x, "
                 "const torch::Tensor &y);" % c)
    files["loss_%d.cpp" % c] = (
        '#include "project.h"\n\n'
        "torch::Tensor loss_%d(torch::nn::Linear &model, const torch::Tensor &x,\n"
        "                     const torch::Tensor &y) {\n"
        "  return torch::mse_loss(model->forward(x), y);\n}\n" % c)
    for k in range(length):
        decls.append("void step_%d_%d(torch::optim::SGD &opt, torch::Tensor loss);" % (c, k))
        body = ("  step_%d_%d(opt, loss);\n" % (c, k + 1) if k + 1 < length
                else "  loss.backward();\n  opt.step();\n")
        files["step_%d_%d.cpp" % (c, k)] = (
            '#include "project.h"\n\nvoid step_%d_%d(torch::optim::SGD &opt, torch::Tensor loss) {\n%s}\n'
            % (c, k, body))
    files["loop_%d.cpp" % c] = (
        '#include "project.h"\n\n'
        "void loop_%d(torch::nn::Linear &model, torch::optim::SGD &opt, const Batches &data) {\n"
        "  torch::Tensor total = torch::zeros({1});\n"
        "  for (const auto &batch : data) {\n"
        "    opt.zero_grad();\n"
        "    auto loss = loss_%d(model, batch.first, batch.second);\n"
        "    total += loss;\n"
        "    step_%d_0(opt, loss);\n"
        "  }\n}\n" % (c, c, c))
files["never_cleared.cpp"] = (
    '#include "project.h"\n\n'
    "void never_cleared(torch::nn::Linear &model, torch::optim::SGD &opt, const Batches &data) {\n"
    "  for (const auto &batch : data) {\n"
    "    torch::mse_loss(model->forward(batch.first), batch.second).backward();\n"
    "    opt.step();\n"
    "  }\n}\n")
files["clean.cpp"] = (
    '#include "project.h"\n\n'
    "void clean(torch::nn::Linear &model, torch::optim::SGD &opt, const Batches &data) {\n"
    "  for (const auto &batch : data) {\n"
    "    opt.zero_grad();\n"
    "    torch::mse_loss(model->forward(batch.first), batch.second).backward();\n"
    "    opt.step();\n"
    "  }\n}\n")
with open(os.path.join(src, "project.h"), "w") as f:
    f.write("#pragma once\n#include <torch/torch.h>\n#include <utility>\n#include <vector>\n\n"
            "using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;\n\n"
            + "\n".join(decls) + "\n")
for name, text in files.items():
    with open(os.path.join(src, name), "w") as f:
        f.write(text)
with open(os.path.join(dest, ".clang-tidy"), "w") as f:
    f.write("Checks: '-*,torch-*'\n")
build = os.path.join(dest, "build")
db = [{"directory": build, "file": "../src/" + n,
       "arguments": ["c++", "-std=c++17", "-isystem", mock, "-I../src", "-c", "../src/" + n]}
      for n in sorted(files)]
with open(os.path.join(build, "compile_commands.json"), "w") as f:
    json.dump(db, f, indent=1)
