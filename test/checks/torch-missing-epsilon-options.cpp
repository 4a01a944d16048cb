// Options: StrictMode also flags arguments of unknown origin; EpsilonLiteral and
// ClampEpsilonLiteral are what the fix-its insert; EpsilonNames decides which
// names count as a guard. --dump-config shows every option with its default.
// RUN: %check_torch_tidy --check-suffixes=STRICT %s torch-missing-epsilon %t -- \
// RUN:   -config="{CheckOptions: {torch-missing-epsilon.StrictMode: true, torch-missing-epsilon.EpsilonLiteral: '1e-6', torch-missing-epsilon.ClampEpsilonLiteral: '1e-4', torch-missing-epsilon.EpsilonNames: '^(margin|eps)$'}}" \
// RUN:   -- -isystem %mock_torch
// RUN: %torch_tidy --checks='-*,torch-missing-epsilon' --dump-config %s -- -isystem %mock_torch | FileCheck --check-prefix=CONFIG %s
// CONFIG: torch-missing-epsilon.ClampEpsilonLiteral: '1e-6'
// CONFIG: torch-missing-epsilon.EpsilonLiteral: '1e-8'
// CONFIG: torch-missing-epsilon.EpsilonNames: '^(k|m_|_)?(eps|epsilon|tiny|smooth)([_0-9].*)?$|_(eps|epsilon)[0-9]*_?$'
// CONFIG: torch-missing-epsilon.StrictMode: 'false'

#include <torch/torch.h>

torch::Tensor user_function(const torch::Tensor &);

struct Model {
  torch::Tensor variance;
  torch::Tensor unknown_origins(const torch::Tensor &x) {
    torch::Tensor r = torch::sqrt(x);
    // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:23: warning: sqrt of a value that nothing keeps away from 0
    // CHECK-FIXES-STRICT: {{^}}    torch::Tensor r = torch::sqrt(x + 1e-6);{{$}}
    r += torch::log(variance);
    // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:10: warning: log of a value that nothing keeps away from 0
    // CHECK-FIXES-STRICT: {{^}}    r += torch::log(variance + 1e-6);{{$}}
    r += torch::acos(x);
    // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:10: warning: acos of a value that nothing keeps inside (-1, 1)
    // CHECK-FIXES-STRICT: {{^}}    r += torch::acos(x.clamp(-1 + 1e-4, 1 - 1e-4));{{$}}
    r += user_function(x).rsqrt();
    // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:27: warning: rsqrt of a value that nothing keeps away from 0
    // CHECK-FIXES-STRICT: {{^}}    r += (user_function(x) + 1e-6).rsqrt();{{$}}
    return r;
  }
};

torch::Tensor names(const torch::Tensor &x, double margin, double kEps) {
  // `margin` is epsilon-like by the configured names, `kEps` is not.
  torch::Tensor r = torch::sqrt(x.pow(2).sum() + margin);
  r += torch::sqrt(x.pow(2).sum() + kEps);
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:8: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES-STRICT: {{^}}  r += torch::sqrt(x.pow(2).sum() + kEps + 1e-6);{{$}}
  auto c = torch::cosine_similarity(x, x);
  r += torch::acos(c * (1 - margin));
  r += torch::acos(c * (1 - kEps));
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:8: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES-STRICT: {{^}}  r += torch::acos((c * (1 - kEps)).clamp(-1 + 1e-4, 1 - 1e-4));{{$}}
  // Reductions and square roots of values of unknown origin as denominators.
  r += x / x.sum() + x / x.sqrt();
  // CHECK-MESSAGES-STRICT: :[[@LINE-1]]:10: warning: division by a sum that can be 0
  // CHECK-MESSAGES-STRICT: :[[@LINE-2]]:28: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES-STRICT: {{^}}  r += x / x.sum() + x / (x + 1e-6).sqrt();{{$}}
  // Guards that need no name are still guards.
  r += torch::sqrt(x.exp()) + torch::log(x.clamp_min(1e-12)) + torch::sqrt(1 + x);
  return r;
}
