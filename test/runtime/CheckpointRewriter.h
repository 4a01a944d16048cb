//===- CheckpointRewriter.h - retag the storages of a LibTorch checkpoint -===//
//
// A checkpoint written by torch::save or torch::jit::Module::save is a zip
// archive (caffe2::serialize::PyTorchStreamWriter) whose pickles (data.pkl,
// constants.pkl) describe every tensor storage with a persistent id
//   ('storage', torch.<Type>Storage, <key>, <location>, <numel>)
// where <location> is the device the tensor lived on ("cpu", "cuda:0", ...).
// At load time LibTorch moves each storage to that location unless the caller
// passes a device. Rewriting the location lets a CPU-only LibTorch produce the
// checkpoint a GPU machine would have written, byte for byte otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_TEST_RUNTIME_CHECKPOINTREWRITER_H
#define TORCH_TIDY_TEST_RUNTIME_CHECKPOINTREWRITER_H

#include <cstddef>
#include <string>
#include <vector>

namespace torch_tidy_runtime {

/// The storage locations recorded in the checkpoint's pickles, in pickle order
/// (one per storage persistent id).
std::vector<std::string> checkpointStorageLocations(const std::string &Path);

/// Copies the checkpoint at InPath to OutPath, with LibTorch's own archive
/// reader and writer, replacing the location of every storage in every pickle
/// record (*.pkl) by NewLocation (e.g. "cuda:0"). All other records are copied
/// unchanged. Returns the number of storages retagged. Throws
/// std::runtime_error on a malformed pickle or an opcode it does not know.
size_t retagCheckpointStorages(const std::string &InPath,
                               const std::string &OutPath,
                               const std::string &NewLocation);

/// The pickle-level rewrite behind retagCheckpointStorages, for one pickle.
/// Appends the locations found to Locations; when NewLocation is non-null,
/// returns the pickle with each location replaced, else returns Pickle as is.
std::string retagPickleStorages(const std::string &Pickle,
                                const std::string *NewLocation,
                                std::vector<std::string> &Locations);

} // namespace torch_tidy_runtime

#endif // TORCH_TIDY_TEST_RUNTIME_CHECKPOINTREWRITER_H
