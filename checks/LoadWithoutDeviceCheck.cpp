//===--- LoadWithoutDeviceCheck.cpp - torch-load-without-device -----------===//

#include "LoadWithoutDeviceCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

enum class DeviceArgument { Given, Missing, Unknown };

struct DeviceSlot {
  DeviceArgument State = DeviceArgument::Missing;
  /// An explicit empty optional (c10::nullopt, {}) standing where the device
  /// goes; the fix-it replaces it.
  const Expr *Empty = nullptr;
  /// The last argument written in the source; the fix-it appends after it.
  const Expr *LastWritten = nullptr;
};

/// Finds out whether the call passes a device. \p PathIndex is the index of
/// the argument naming what to load (path, stream or buffer); every overload
/// takes the device after it.
DeviceSlot findDeviceArgument(const CallExpr &Call, unsigned PathIndex) {
  DeviceSlot Slot;
  const FunctionDecl *Callee = Call.getDirectCallee();
  for (unsigned I = 0; I < Call.getNumArgs(); ++I) {
    const Expr *Arg = Call.getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg))
      break; // Default arguments are trailing: the rest were not written.
    Slot.LastWritten = Arg;
    if (I <= PathIndex)
      continue;
    if (Arg->isTypeDependent()) {
      // A template argument might well be a device: stay silent.
      Slot.State = DeviceArgument::Unknown;
      return Slot;
    }
    QualType ParamType = Callee && I < Callee->getNumParams()
                             ? Callee->getParamDecl(I)->getType()
                             : QualType();
    QualType WrittenType = Arg->IgnoreUnlessSpelledInSource()->getType();
    if (!isDeviceType(ParamType) && !isDeviceType(WrittenType) &&
        !isNullOptType(WrittenType))
      continue;
    if (!isEmptyOptional(Arg)) {
      Slot.State = DeviceArgument::Given;
      return Slot;
    }
    Slot.Empty = Arg;
  }
  return Slot;
}

} // namespace

LoadWithoutDeviceCheck::LoadWithoutDeviceCheck(StringRef Name,
                                               ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      DefaultDevice(Options.get("DefaultDevice", "torch::kCPU")) {}

void LoadWithoutDeviceCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "DefaultDevice", DefaultDevice);
}

void LoadWithoutDeviceCheck::registerMatchers(MatchFinder *Finder) {
  const auto LoadFunction = namedDecl(anyOf(
      hasName("::torch::load"), hasName("::torch::jit::load"),
      cxxMethodDecl(hasName("load_from"),
                    ofClass(hasName("::torch::serialize::InputArchive")))));
  // Inside templates a call with dependent arguments is not resolved yet: its
  // callee is an overload set that contains LibTorch's functions.
  const auto Callee = anyOf(
      callee(functionDecl(LoadFunction).bind("fn")),
      callee(unresolvedLookupExpr(hasAnyDeclaration(LoadFunction.bind("fn")))),
      callee(unresolvedMemberExpr(hasAnyDeclaration(LoadFunction.bind("fn")))));
  // Templates are checked once, in their written form; instantiations would
  // repeat each diagnostic.
  // The matcher runs over the user's top-level declarations only
  // (UserCodeMatchFinder); isExpansionInUserCode still drops the few nodes in
  // them that come from elsewhere (a header included inside a function).
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(), Callee,
               unless(ast_matchers::isInTemplateInstantiation()))
          .bind("call"));
  UserCode.registerWith(*Finder);
}

void LoadWithoutDeviceCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  const auto *Fn = Result.Nodes.getNodeAs<NamedDecl>("fn");
  const SourceManager &SM = *Result.SourceManager;
  // A call spelled inside a macro of LibTorch or of a system header is not the
  // user's to fix.
  if (!isInUserCode(SM.getSpellingLoc(beginLoc(*Call)), SM))
    return;

  const std::string Name = Fn->getQualifiedNameAsString();
  const bool IsArchiveLoad = Name == "torch::load";
  // torch::load(value, path, ...) forwards everything after `value` to
  // InputArchive::load_from(path, ...).
  const DeviceSlot Slot = findDeviceArgument(*Call, IsArchiveLoad ? 1 : 0);
  if (Slot.State != DeviceArgument::Missing)
    return;

  StringRef Shown = IsArchiveLoad                ? "torch::load"
                    : Name == "torch::jit::load" ? "torch::jit::load"
                                                 : "InputArchive::load_from";
  auto Diag = diag(beginLoc(*Call),
                   "%0 without a device restores tensors onto the device they "
                   "were saved from and fails on a host without it; pass the "
                   "device to load onto")
              << Shown;

  // The device to pass: the one torch::Device variable in scope, if there is
  // exactly one, else the configured default. An unnamed parameter cannot be
  // passed.
  std::string Device = DefaultDevice;
  const auto Devices =
      visibleLocalVariables(*Call, *Result.Context, [](const VarDecl &VD) {
        return VD.getIdentifier() && !VD.getName().empty() &&
               isDeviceClassType(VD.getType());
      });
  if (Devices.size() == 1)
    Device = Devices.front()->getName().str();

  const LangOptions &LangOpts = Result.Context->getLangOpts();
  if (Slot.Empty) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(
            Slot.Empty->IgnoreUnlessSpelledInSource()->getSourceRange()),
        SM, LangOpts);
    if (Range.isValid())
      Diag << FixItHint::CreateReplacement(Range, Device);
    return;
  }
  if (!Slot.LastWritten)
    return;
  CharSourceRange LastArg = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Slot.LastWritten->getSourceRange()), SM,
      LangOpts);
  // No fix-it inside a macro body: the edit would change every expansion.
  if (LastArg.isInvalid() ||
      beginLoc(*Call).isMacroID() != endLoc(*Call).isMacroID())
    return;
  if (beginLoc(*Call).isMacroID() && !SM.isMacroArgExpansion(beginLoc(*Call)))
    return;
  Diag << FixItHint::CreateInsertion(LastArg.getEnd(), ", " + Device);
}

} // namespace clang::tidy::torch
