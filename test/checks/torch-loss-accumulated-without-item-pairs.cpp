// A container whose elements hold several tensors (pairs, tuples, structs),
// filled in a training loop: `history.emplace_back(d_loss, g_loss)`,
// `push_back({loss, out})`, `push_back(std::make_pair(...))`. Every element
// with autograd history keeps its iteration's graph.
// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>
#include <utility>
#include <vector>

struct StepRecord {
  int step;
  torch::Tensor loss;
};

// --- Positive ------------------------------------------------------------------

void ganHistory(torch::nn::Linear G, torch::nn::Linear D, torch::optim::SGD &optG,
                torch::optim::SGD &optD, torch::Tensor real) {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> history;
  for (int i = 0; i < 100; ++i) {
    auto fake = G->forward(torch::randn({4, 4}));
    auto d_loss = D->forward(real).mean() - D->forward(fake.detach()).mean();
    d_loss.backward();
    optD.step();
    auto g_loss = -D->forward(fake).mean();
    g_loss.backward();
    optG.step();
    history.emplace_back(d_loss, g_loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'history' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: {{^}}    history.emplace_back(d_loss.detach(), g_loss.detach());{{$}}
  }
}

void bracedPair(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> log;
  for (int i = 0; i < 100; ++i) {
    auto out = model->forward(x);
    auto loss = out.sum();
    loss.backward();
    opt.step();
    log.push_back({x, loss});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'log' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: {{^}}    log.push_back({x, loss.detach()});{{$}}
  }
}

void madeTuple(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<std::tuple<int, torch::Tensor>> log;
  for (int i = 0; i < 100; ++i) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    log.push_back(std::make_tuple(i, loss));
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'log' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: {{^}}    log.push_back(std::make_tuple(i, loss.detach()));{{$}}
  }
}

void structRecord(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<StepRecord> records;
  for (int i = 0; i < 100; ++i) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    records.push_back(StepRecord{i, loss});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'records' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: {{^}}    records.push_back(StepRecord{i, loss.detach()});{{$}}
  }
}

// --- Negative twins ---------------------------------------------------------------

void detachedPair(torch::nn::Linear G, torch::nn::Linear D, torch::optim::SGD &opt,
                  torch::Tensor real) {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> history;
  for (int i = 0; i < 100; ++i) {
    auto d_loss = D->forward(real).mean();
    auto g_loss = -D->forward(G->forward(real)).mean();
    (d_loss + g_loss).backward();
    opt.step();
    history.emplace_back(d_loss.detach(), g_loss.detach());
  }
}

void numbers(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<std::pair<int, double>> log;
  for (int i = 0; i < 100; ++i) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    log.push_back({i, loss.item<double>()});
  }
}

void dataPairs(torch::nn::Linear model, torch::optim::SGD &opt) {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> seen;
  for (int i = 0; i < 100; ++i) {
    auto x = torch::randn({4, 4});
    auto y = torch::randn({4, 1});
    model->forward(x).sum().backward();
    opt.step();
    seen.emplace_back(x, y);
  }
}
