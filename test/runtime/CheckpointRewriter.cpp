//===- CheckpointRewriter.cpp - retag the storages of a LibTorch checkpoint
//===//

#include "CheckpointRewriter.h"

#include <caffe2/serialize/inline_container.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

namespace torch_tidy_runtime {
namespace {

[[noreturn]] void fail(const std::string &Why, size_t Pos) {
  throw std::runtime_error("checkpoint pickle: " + Why + " at byte " +
                           std::to_string(Pos));
}

/// Walks a pickle opcode by opcode (protocols 0-5, the opcodes LibTorch's and
/// Python's picklers emit) and rewrites the location element of every storage
/// persistent id. The persistent id is built as
///   MARK <str 'storage'> GLOBAL 'torch\n<T>Storage' <str key> <str location>
///   <int numel> TUPLE BINPERSID
/// so the location is the second string pushed after a torch.*Storage GLOBAL;
/// a string may be a literal or a memo reference (BINGET) to an earlier one,
/// and the GLOBAL too: LibTorch's pickler memoizes both, so only the first
/// storage of each type spells out GLOBAL 'torch\nFloatStorage'.
class PickleRewriter {
  /// What a memo entry holds, as far as storages are concerned.
  struct Value {
    bool IsStorageType = false; // a torch.*Storage class
    std::string Str;            // else: a string
  };

public:
  PickleRewriter(const std::string &In, const std::string *NewLocation,
                 std::vector<std::string> &Locations)
      : In(In), NewLocation(NewLocation), Locations(Locations) {}

  std::string run() {
    while (Pos < In.size()) {
      const size_t Start = Pos;
      const auto Op = static_cast<unsigned char>(In[Pos++]);
      std::optional<Value> Pushed; // the string or storage type this op pushes
      bool IsMemoPut = false;
      switch (Op) {
      // Opcodes without an argument.
      case '.': // STOP
        copy(Start);
        if (Pos != In.size())
          fail("data after STOP", Pos);
        return Out;
      case '(':  // MARK
      case '0':  // POP
      case '1':  // POP_MARK
      case '2':  // DUP
      case 'N':  // NONE
      case 'Q':  // BINPERSID
      case 'R':  // REDUCE
      case 'a':  // APPEND
      case 'b':  // BUILD
      case 'd':  // DICT
      case '}':  // EMPTY_DICT
      case 'e':  // APPENDS
      case 'l':  // LIST
      case ']':  // EMPTY_LIST
      case 'o':  // OBJ
      case 's':  // SETITEM
      case 't':  // TUPLE
      case ')':  // EMPTY_TUPLE
      case 'u':  // SETITEMS
      case 0x81: // NEWOBJ
      case 0x85: // TUPLE1
      case 0x86: // TUPLE2
      case 0x87: // TUPLE3
      case 0x88: // NEWTRUE
      case 0x89: // NEWFALSE
      case 0x8f: // EMPTY_SET
      case 0x90: // ADDITEMS
      case 0x91: // FROZENSET
      case 0x92: // NEWOBJ_EX
      case 0x93: // STACK_GLOBAL
      case 0x97: // NEXT_BUFFER
      case 0x98: // READONLY_BUFFER
        break;
      case 0x94: // MEMOIZE
        IsMemoPut = true;
        memoPut(NextMemo++);
        break;
      // Fixed-size arguments.
      case 0x80: // PROTO
      case 'K':  // BININT1
        skip(1);
        break;
      case 'M': // BININT2
        skip(2);
        break;
      case 'J': // BININT
        skip(4);
        break;
      case 'G': // BINFLOAT
        skip(8);
        break;
      case 0x95: // FRAME: its length would need rewriting; LibTorch emits none.
        fail("FRAME opcode (protocol 4 framing) is not supported", Start);
      case 0x82: // EXT1
        skip(1);
        break;
      case 0x83: // EXT2
        skip(2);
        break;
      case 0x84: // EXT4
        skip(4);
        break;
      case 'q': // BINPUT
        IsMemoPut = true;
        memoPut(readUInt(1));
        break;
      case 'r': // LONG_BINPUT
        IsMemoPut = true;
        memoPut(readUInt(4));
        break;
      case 'h': // BINGET
        Pushed = memoGet(readUInt(1));
        break;
      case 'j': // LONG_BINGET
        Pushed = memoGet(readUInt(4));
        break;
      // Length-prefixed arguments.
      case 0x8a: // LONG1
        skip(readUInt(1));
        break;
      case 0x8b: // LONG4
        skip(readUInt(4));
        break;
      case 'C': // SHORT_BINBYTES
        skip(readUInt(1));
        break;
      case 'B': // BINBYTES
        skip(readUInt(4));
        break;
      case 0x8e: // BINBYTES8
      case 0x96: // BYTEARRAY8
        skip(readUInt(8));
        break;
      case 'U':  // SHORT_BINSTRING
      case 0x8c: // SHORT_BINUNICODE
        Pushed = Value{false, readBytes(readUInt(1))};
        break;
      case 'T': // BINSTRING
      case 'X': // BINUNICODE
        Pushed = Value{false, readBytes(readUInt(4))};
        break;
      case 0x8d: // BINUNICODE8
        Pushed = Value{false, readBytes(readUInt(8))};
        break;
      // Newline-terminated (protocol 0) arguments.
      case 'I': // INT
      case 'L': // LONG
      case 'F': // FLOAT
      case 'S': // STRING
      case 'V': // UNICODE
      case 'P': // PERSID
        readLine();
        break;
      case 'g': // GET
        Pushed = memoGet(std::stoull(readLine()));
        break;
      case 'p': // PUT
        IsMemoPut = true;
        memoPut(std::stoull(readLine()));
        break;
      case 'c': { // GLOBAL
        const std::string Module = readLine();
        const std::string Name = readLine();
        if (Module == "torch" && Name.size() > 7 &&
            Name.compare(Name.size() - 7, 7, "Storage") == 0)
          Pushed = Value{true, Name};
        break;
      }
      case 'i': // INST
        readLine();
        readLine();
        break;
      default:
        fail("unknown opcode " + std::to_string(Op), Start);
      }

      if (Pushed && Pushed->IsStorageType) {
        StringsSinceStorageGlobal = 0;
      } else if (Pushed && StringsSinceStorageGlobal >= 0 &&
                 ++StringsSinceStorageGlobal == 2) {
        // This op pushes the storage's location.
        StringsSinceStorageGlobal = -1;
        Locations.push_back(Pushed->Str);
        if (NewLocation) {
          // A literal BINUNICODE replaces the op (a literal or a memo
          // reference alike); a following BINPUT memoizes the new string.
          Out.push_back('X');
          const auto Size = static_cast<uint32_t>(NewLocation->size());
          for (int I = 0; I < 4; ++I)
            Out.push_back(static_cast<char>((Size >> (8 * I)) & 0xff));
          Out += *NewLocation;
          LastPushed = Value{false, *NewLocation};
          continue;
        }
      }
      if (!IsMemoPut)
        LastPushed = Pushed;
      copy(Start);
    }
    fail("pickle ends without STOP", Pos);
  }

private:
  void copy(size_t Start) { Out.append(In, Start, Pos - Start); }

  void need(uint64_t N) {
    if (N > In.size() - Pos)
      fail("truncated argument", Pos);
  }
  void skip(uint64_t N) {
    need(N);
    Pos += N;
  }
  uint64_t readUInt(int Bytes) {
    need(Bytes);
    uint64_t V = 0;
    for (int I = 0; I < Bytes; ++I)
      V |= static_cast<uint64_t>(static_cast<unsigned char>(In[Pos + I]))
           << (8 * I);
    Pos += Bytes;
    return V;
  }
  std::string readBytes(uint64_t N) {
    need(N);
    std::string S = In.substr(Pos, N);
    Pos += N;
    return S;
  }
  std::string readLine() {
    const size_t End = In.find('\n', Pos);
    if (End == std::string::npos)
      fail("unterminated line argument", Pos);
    std::string S = In.substr(Pos, End - Pos);
    Pos = End + 1;
    return S;
  }
  void memoPut(uint64_t Id) {
    if (LastPushed)
      Memo[Id] = *LastPushed;
    else
      Memo.erase(Id);
    NextMemo = std::max(NextMemo, Id + 1);
  }
  std::optional<Value> memoGet(uint64_t Id) {
    auto It = Memo.find(Id);
    if (It == Memo.end())
      return std::nullopt; // neither a string nor a storage type
    return It->second;
  }

  const std::string &In;
  const std::string *NewLocation;
  std::vector<std::string> &Locations;
  std::string Out;
  size_t Pos = 0;
  std::map<uint64_t, Value> Memo; // entries holding strings or storage types
  uint64_t NextMemo = 0;
  std::optional<Value> LastPushed; // what the previous op pushed, if relevant
  int StringsSinceStorageGlobal = -1;
};

bool isPickleRecord(const std::string &Name) {
  return Name.size() > 4 && Name.compare(Name.size() - 4, 4, ".pkl") == 0;
}

std::string recordText(caffe2::serialize::PyTorchStreamReader &Reader,
                       const std::string &Name) {
  auto Record = Reader.getRecord(Name);
  const at::DataPtr &Data = std::get<0>(Record);
  return std::string(static_cast<const char *>(Data.get()),
                     std::get<1>(Record));
}

} // namespace

std::string retagPickleStorages(const std::string &Pickle,
                                const std::string *NewLocation,
                                std::vector<std::string> &Locations) {
  std::string Out = PickleRewriter(Pickle, NewLocation, Locations).run();
  return NewLocation ? Out : Pickle;
}

std::vector<std::string> checkpointStorageLocations(const std::string &Path) {
  caffe2::serialize::PyTorchStreamReader Reader(Path);
  std::vector<std::string> Locations;
  for (const std::string &Name : Reader.getAllRecords())
    if (isPickleRecord(Name))
      retagPickleStorages(recordText(Reader, Name), nullptr, Locations);
  return Locations;
}

size_t retagCheckpointStorages(const std::string &InPath,
                               const std::string &OutPath,
                               const std::string &NewLocation) {
  caffe2::serialize::PyTorchStreamReader Reader(InPath);
  caffe2::serialize::PyTorchStreamWriter Writer(OutPath);
  Writer.setMinVersion(Reader.version());
  std::vector<std::string> Locations;
  for (const std::string &Name : Reader.getAllRecords()) {
    // The writer records the format version itself in writeEndOfFile().
    if (Name == "version" || Name == ".data/version")
      continue;
    std::string Data = recordText(Reader, Name);
    if (isPickleRecord(Name))
      Data = retagPickleStorages(Data, &NewLocation, Locations);
    Writer.writeRecord(Name, Data.data(), Data.size());
  }
  Writer.writeEndOfFile();
  return Locations.size();
}

} // namespace torch_tidy_runtime
