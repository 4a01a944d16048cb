//===--- ObjectIdentity.h - which module or optimizer object? ---*- C++ -*-===//
//
// moduleObjectEntity (LibTorch.h) names the variable or field a module or
// optimizer call is made on as written. The same object is often reached by
// other spellings: a pointer member (`m_optimizer->zero_grad()`), a local
// reference or pointer to it (`auto &opt = *m_optimizer;`, `Adam *o =
// &optD;`), a copy of a shared handle (`auto opt = m_opt;` of a
// std::shared_ptr, `Net net = model;` of a module holder, which shares the
// module), `p.get()` of a smart pointer, an accessor of the user's class
// (`Adam &optimizer() { return *m_optimizer; }`). heldObject sees through
// them to the variable or field that holds the object, so that two
// spellings of one object compare equal and two different objects do not.
//
// isFreshModuleConstruction answers the converse question for a module:
// does an initialiser make a new module (`Net net;`, `Mlp net(in, hidden)`,
// `std::make_shared<MlpImpl>(cfg)`, `torch::nn::Linear(in, out)`) rather
// than share one that exists (`Net net = model;`, `Mlp net(impl)`)?
//
// Name knowledge only (smart pointers, module holders, module and optimizer
// classes) plus the written initialisers; no check policy.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_LIBTORCH_OBJECTIDENTITY_H
#define TORCH_TIDY_CHECKS_UTILS_LIBTORCH_OBJECTIDENTITY_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch {

/// The variable or field that holds the object \p Object (the object of a
/// module or optimizer call) refers to, seen through: `->` and `*` of a
/// smart pointer, module holder or raw pointer, `&x`, `p.get()`; a local
/// variable that is a reference, a raw pointer, a std::shared_ptr or a
/// module holder, initialised from another object and never rebound in its
/// function; a call of an accessor of the user's code whose body is one
/// `return` of such an expression. Stops at a parameter, a field, a global,
/// a range-for variable (another element each time), a local whose
/// initialiser says nothing more (it is returned then). Null when \p Object
/// names no entity.
const ValueDecl *heldObject(const Expr *Object);

/// True if \p Init, the initialiser of a variable that holds a module (a
/// module class, a module holder, a std::shared_ptr to one), makes a new
/// module: a construction by a constructor that is not a copy or a move, or
/// std::make_shared / std::make_unique of a module class, whose arguments
/// hold no existing module (an argument that is itself a fresh module
/// counts as fresh: `Sequential(Linear(2, 3), ReLU())`). A default
/// construction counts.
bool isFreshModuleConstruction(const Expr *Init);

} // namespace clang::tidy::torch

#endif
