// models/checkpoint/safetensors.cpp — the safetensors reader (memory-mapped, validated at open) and writer.
//
// Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON, then the data section.
// The JSON maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative
// to the data section) and may hold "__metadata__", an object of string → string.
// The reader maps the whole file read-only and hands out tensors that view the mapped bytes; each such
// tensor holds a shared_ptr to the file, so the mapping lives until the last tensor is gone.
// Both sides assume a little-endian host (x86-64): header length and tensor bytes are used as they lie.
#include "models/checkpoint/safetensors.h"

#include "models/atomic_file.h"

#include "models/errors.h"
#include "models/json_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes a little-endian host");

namespace aw {
namespace {

using nlohmann::json;

constexpr uint64_t kHeaderLengthBytes = 8;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeInfo {
  const char* name;
  torch::ScalarType scalar_type;
  uint64_t element_bytes;
};

constexpr DtypeInfo kDtypes[] = {
    {"F64", torch::kFloat64, 8}, {"F32", torch::kFloat32, 4}, {"F16", torch::kFloat16, 2},
    {"BF16", torch::kBFloat16, 2}, {"I64", torch::kInt64, 8}, {"I32", torch::kInt32, 4},
    {"I16", torch::kInt16, 2},     {"I8", torch::kInt8, 1},     {"U8", torch::kUInt8, 1},
    {"BOOL", torch::kBool, 1},
};

const DtypeInfo* dtype_by_name(const std::string& name) {
  for (const auto& info : kDtypes)
    if (name == info.name) return &info;
  return nullptr;
}

const DtypeInfo* dtype_by_scalar_type(torch::ScalarType scalar_type) {
  for (const auto& info : kDtypes)
    if (scalar_type == info.scalar_type) return &info;
  return nullptr;
}


// "an array", "a number", ... for "X is <described>, not an object".
std::string described(const json& value) {
  switch (value.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::null: return "null";
    default: return std::string("a ") + value.type_name();
  }
}


bool is_count(const json& value) { return value.is_number_unsigned(); }

// One header entry, checked field by field; returns the record with the dtype still unchecked.
TensorRecord parse_entry(const std::string& path, const std::string& name, const json& entry) {
  const auto tensor = "tensor " + quoted_excerpt(name);
  if (!entry.is_object()) fail_in_file(path, "entry for " + tensor + " is " + described(entry) + ", not an object");
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(field)) fail_in_file(path, tensor + " has no " + field);

  TensorRecord record;
  record.name = name;
  const auto& dtype = entry.at("dtype");
  if (!dtype.is_string()) fail_in_file(path, tensor + ": dtype must be a string, found " + json_excerpt(dtype));
  record.dtype = dtype.get<std::string>();

  const auto& shape = entry.at("shape");
  if (!shape.is_array() || !std::all_of(shape.begin(), shape.end(), is_count))
    fail_in_file(path, tensor + ": shape must be an array of non-negative integers, found " + json_excerpt(shape));
  std::vector<uint64_t> dims;
  for (const auto& dim : shape) dims.push_back(dim.get<uint64_t>());

  const auto& offsets = entry.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !is_count(offsets[0]) || !is_count(offsets[1]))
    fail_in_file(path, tensor + ": data_offsets must be two non-negative integers, found " + json_excerpt(offsets));
  record.begin = offsets[0].get<uint64_t>();
  record.end = offsets[1].get<uint64_t>();
  if (record.begin > record.end)
    fail_in_file(path, tensor + " has data_offsets " + shape_string(std::vector<uint64_t>{record.begin, record.end}) +
                           " whose begin is after its end");

  // Element count and byte size must fit int64 (torch sizes), with no silent wrap-around. The nonzero
  // dims are checked as well: an empty [0, 2^62, 2^62] tensor still has strides torch must compute.
  const auto* info = dtype_by_name(record.dtype);
  if (info == nullptr) fail_in_file(path, tensor + " has unsupported dtype " + quoted_excerpt(record.dtype));
  constexpr size_t kMaxDims = 32;
  if (dims.size() > kMaxDims)
    fail_in_file(path, tensor + " has " + std::to_string(dims.size()) + " dimensions, more than the " +
                           std::to_string(kMaxDims) + " this tool accepts");
  constexpr auto kMaxSize = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t bytes = info->element_bytes;
  uint64_t nonzero_bytes = info->element_bytes;
  for (const auto dim : dims)
    if (dim > kMaxSize || __builtin_mul_overflow(bytes, dim, &bytes) || bytes > kMaxSize ||
        (dim != 0 && (__builtin_mul_overflow(nonzero_bytes, dim, &nonzero_bytes) || nonzero_bytes > kMaxSize)))
      fail_in_file(path, tensor + " has shape " + shape_string(dims) + " whose size overflows 64 bits");
  if (bytes != record.end - record.begin)
    fail_in_file(path, tensor + " has shape " + shape_string(dims) + " of " + record.dtype + " (" +
                           std::to_string(bytes) + " bytes) but its data range holds " +
                           std::to_string(record.end - record.begin) + " bytes");
  record.shape.assign(dims.begin(), dims.end());
  return record;
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const json& metadata) {
  if (!metadata.is_object())
    fail_in_file(path, std::string(kMetadataKey) + " is " + described(metadata) + ", not an object");
  std::map<std::string, std::string> entries;
  for (const auto& item : metadata.items()) {
    if (!item.value().is_string())
      fail_in_file(path, std::string(kMetadataKey) + " value " + quoted_excerpt(item.key()) + " is " +
                             described(item.value()) + ", not a string");
    entries[item.key()] = item.value().get<std::string>();
  }
  return entries;
}

// Non-empty ranges must not share a byte; zero-byte tensors overlap nothing.
void check_no_overlap(const std::string& path, const std::map<std::string, TensorRecord>& records) {
  std::vector<const TensorRecord*> by_begin;
  for (const auto& item : records)
    if (item.second.begin < item.second.end) by_begin.push_back(&item.second);
  std::sort(by_begin.begin(), by_begin.end(), [](const TensorRecord* a, const TensorRecord* b) {
    return std::tie(a->begin, a->end, a->name) < std::tie(b->begin, b->end, b->name);
  });
  const TensorRecord* furthest = nullptr;  // the range seen so far that reaches furthest
  for (const auto* record : by_begin) {
    if (furthest != nullptr && record->begin < furthest->end) {
      const auto offsets = [](const TensorRecord* r) {
        return "(data_offsets " + shape_string(std::vector<uint64_t>{r->begin, r->end}) + ")";
      };
      fail_in_file(path, "tensors " + quoted_excerpt(furthest->name) + " " + offsets(furthest) + " and " +
                             quoted_excerpt(record->name) + " " + offsets(record) + " overlap");
    }
    if (furthest == nullptr || record->end > furthest->end) furthest = record;
  }
}

}  // namespace

std::shared_ptr<const SafetensorsFile> SafetensorsFile::open(const std::string& path) {
  // O_NONBLOCK so that a FIFO does not hang us; it changes nothing for regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail_in_file(path, "cannot open: " + system_error());
  struct stat info {};
  const bool stat_ok = ::fstat(fd, &info) == 0;
  const auto stat_error = system_error();
  if (!stat_ok || !S_ISREG(info.st_mode)) {
    ::close(fd);
    if (!stat_ok) fail_in_file(path, "cannot open: " + stat_error);
    fail_in_file(path, S_ISDIR(info.st_mode) ? "is a directory, not a safetensors file" : "is not a regular file");
  }
  const auto file_size = static_cast<uint64_t>(info.st_size);
  if (file_size < kHeaderLengthBytes) {
    ::close(fd);
    fail_in_file(path, "is " + std::to_string(file_size) + (file_size == 1 ? " byte" : " bytes") +
                           ", too short for a safetensors file (at least 8)");
  }
  void* mapping = ::mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  const auto map_error = system_error();
  ::close(fd);  // the mapping keeps its own reference to the file
  if (mapping == MAP_FAILED) fail_in_file(path, "cannot map into memory: " + map_error);

  // Owned from here on, so that every failure below unmaps.
  std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->self_ = file;
  file->path_ = path;
  file->file_size_ = file_size;
  file->mapping_ = static_cast<const uint8_t*>(mapping);

  uint64_t header_length = 0;
  std::memcpy(&header_length, file->mapping_, kHeaderLengthBytes);  // little-endian on disk and host
  if (header_length == 0) fail_in_file(path, "header length is 0");
  // The format's own reader refuses headers over 100 MB; so do we, before parsing one.
  constexpr uint64_t kMaxHeaderBytes = 100'000'000;
  if (header_length > kMaxHeaderBytes)
    fail_in_file(path, "header length " + std::to_string(header_length) + " is over the format's limit of " +
                           std::to_string(kMaxHeaderBytes) + " bytes");
  if (header_length > file_size - kHeaderLengthBytes)
    fail_in_file(path, "header length " + std::to_string(header_length) + " runs past the end of the file (" +
                           std::to_string(file_size) + " bytes)");
  file->data_ = file->mapping_ + kHeaderLengthBytes + header_length;
  const uint64_t data_size = file_size - kHeaderLengthBytes - header_length;

  // Duplicate names would silently collapse into one in the parsed object; catch them while parsing.
  std::string duplicate;
  std::set<std::string> seen;
  const json::parser_callback_t on_key = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key && duplicate.empty() &&
        !seen.insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  const auto* header_begin = reinterpret_cast<const char*>(file->mapping_ + kHeaderLengthBytes);
  const json header = parse_untrusted_json(std::string_view(header_begin, header_length), path, "header", on_key);
  if (!header.is_object()) fail_in_file(path, "header is " + described(header) + ", not a JSON object");
  if (!duplicate.empty()) fail_in_file(path, "tensor " + quoted_excerpt(duplicate) + " appears twice in the header");

  // Each record costs memory beyond its header bytes; real checkpoints hold at most tens of thousands.
  constexpr size_t kMaxTensors = 1'000'000;
  if (header.size() > kMaxTensors)
    fail_in_file(path, "header lists " + std::to_string(header.size()) + " tensors, more than the " +
                           std::to_string(kMaxTensors) + " this tool accepts");
  for (const auto& item : header.items()) {
    if (item.key() == kMetadataKey) {
      file->metadata_ = parse_metadata(path, item.value());
      continue;
    }
    auto record = parse_entry(path, item.key(), item.value());
    if (record.end > data_size)
      fail_in_file(path, "tensor " + quoted_excerpt(record.name) + " has data_offsets " +
                             shape_string(std::vector<uint64_t>{record.begin, record.end}) +
                             " past the end of the " + std::to_string(data_size) + "-byte data section");
    file->records_.emplace(record.name, std::move(record));
  }
  check_no_overlap(path, file->records_);
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  if (mapping_ != nullptr) ::munmap(const_cast<uint8_t*>(mapping_), file_size_);
}

bool SafetensorsFile::contains(const std::string& name) const { return records_.count(name) != 0; }

const TensorRecord& SafetensorsFile::record(const std::string& name) const {
  const auto found = records_.find(name);
  if (found == records_.end()) fail_in_file(path_, "no tensor " + quoted_excerpt(name));
  return found->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> names;
  names.reserve(records_.size());
  for (const auto& item : records_) names.push_back(item.first);
  return names;
}

torch::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const auto& found = record(name);
  const auto* info = dtype_by_name(found.dtype);  // checked at open
  const auto options = torch::TensorOptions().dtype(info->scalar_type);
  if (found.begin == found.end) return torch::empty(found.shape, options);

  auto* bytes = const_cast<uint8_t*>(data_ + found.begin);
  // The format does not promise aligned offsets; a misaligned view would be undefined behaviour in
  // kernels, so such a tensor (rare) is copied instead.
  if (reinterpret_cast<uintptr_t>(bytes) % info->element_bytes != 0)
    return torch::from_blob(bytes, found.shape, options).clone();
  auto keep_alive = self_.lock();
  return torch::from_blob(bytes, found.shape, [keep_alive](void*) {}, options);
}

SafetensorsWriter::SafetensorsWriter(std::string path, const std::vector<Declared>& tensors,
                                     const std::map<std::string, std::string>& metadata)
    : path_(std::move(path)), declared_(tensors) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const auto& tensor : declared_) {
    if (tensor.name == kMetadataKey) fail_in_file(path_, "tensor name " + quoted_excerpt(tensor.name) + " is reserved");
    if (!names.insert(tensor.name).second) fail_in_file(path_, "duplicate tensor name " + quoted_excerpt(tensor.name));
    const auto* info = dtype_by_scalar_type(tensor.dtype);
    if (info == nullptr)
      fail_in_file(path_, "tensor " + quoted_excerpt(tensor.name) + " has unsupported dtype " +
                              std::string(c10::toString(tensor.dtype)));
    uint64_t size = info->element_bytes;
    for (auto extent : tensor.shape) size *= static_cast<uint64_t>(extent);
    header[tensor.name] = {{"dtype", info->name}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + size}}};
    offsets_.push_back(offset);
    offset += size;
  }
  std::string header_text;
  try {
    header_text = header.dump();
  } catch (const nlohmann::json::type_error&) {
    fail_in_file(path_, "a tensor name or metadata entry is not valid UTF-8");
  }
  // Spaces up to a multiple of 8 keep the data section 8-byte aligned (as the reference writer does).
  header_text.append((8 - header_text.size() % 8) % 8, ' ');
  const uint64_t header_length = header_text.size();  // little-endian on disk and host

  file_ = std::make_unique<AtomicFile>(path_);
  file_->write(&header_length, kHeaderLengthBytes);
  file_->write(header_text.data(), header_text.size());
  for (auto& tensor_offset : offsets_) tensor_offset += kHeaderLengthBytes + header_length;
}

SafetensorsWriter::~SafetensorsWriter() = default;  // an unfinished file removes its temporary file

void SafetensorsWriter::fail(const std::string& message) {
  file_->discard();
  fail_in_file(path_, message);
}

void SafetensorsWriter::write(const torch::Tensor& value) {
  if (!file_->isOpen()) fail_in_file(path_, "written after it was finished");
  if (next_ >= declared_.size()) fail("more tensors written than the " + std::to_string(declared_.size()) + " declared");
  const auto& expected = declared_[next_];
  if (!value.defined()) fail("tensor " + quoted_excerpt(expected.name) + " is undefined");
  if (value.scalar_type() != expected.dtype || value.sizes().vec() != expected.shape)
    fail("tensor " + quoted_excerpt(expected.name) + " is " + std::string(c10::toString(value.scalar_type())) + " " +
         shape_string(value.sizes()) + ", declared " + std::string(c10::toString(expected.dtype)) + " " +
         shape_string(expected.shape));
  if (rows_written_ > 0) fail("tensor " + quoted_excerpt(expected.name) + " is half written by rows");
  const auto bytes = value.detach().to(torch::kCPU).contiguous();
  file_->write_at(offsets_[next_], bytes.data_ptr(), bytes.nbytes());
  ++next_;
}

void SafetensorsWriter::write_rows(const torch::Tensor& given, int64_t first_row) {
  if (!file_->isOpen()) fail_in_file(path_, "written after it was finished");
  if (next_ >= declared_.size()) fail("more tensors written than the " + std::to_string(declared_.size()) + " declared");
  const auto& expected = declared_[next_];
  // A declared [R, C] is written as [1, R, C]: rows [r, C] or [1, r, C].
  auto shape = expected.shape;
  if (shape.size() == 2) shape.insert(shape.begin(), 1);
  const auto rows = given.defined() && given.dim() == 2 ? given.unsqueeze(0) : given;
  if (!rows.defined() || rows.dim() != 3 || shape.size() != 3 || rows.scalar_type() != expected.dtype ||
      rows.size(0) != shape[0] || rows.size(2) != shape[2] || first_row != rows_written_ ||
      first_row + rows.size(1) > shape[1])
    fail("rows " + std::to_string(first_row) + "+ of tensor " + quoted_excerpt(expected.name) + " (" +
         (rows.defined() ? std::string(c10::toString(rows.scalar_type())) + " " + shape_string(rows.sizes()) : "undefined") +
         ") do not fit its declared " + std::string(c10::toString(expected.dtype)) + " " + shape_string(expected.shape) +
         " after " + std::to_string(rows_written_) + " rows");
  const auto bytes = rows.detach().to(torch::kCPU).contiguous();
  const uint64_t row_bytes = static_cast<uint64_t>(shape[2]) * bytes.element_size();
  const auto* data = static_cast<const char*>(bytes.data_ptr());
  for (int64_t slice = 0; slice < shape[0]; ++slice)  // slice s's rows sit at s·R + first_row
    file_->write_at(offsets_[next_] + (static_cast<uint64_t>(slice * shape[1] + first_row)) * row_bytes,
                    data + static_cast<uint64_t>(slice * rows.size(1)) * row_bytes,
                    static_cast<size_t>(rows.size(1)) * row_bytes);
  rows_written_ += rows.size(1);
  if (rows_written_ == shape[1]) {
    rows_written_ = 0;
    ++next_;
  }
}

void SafetensorsWriter::finish() {
  if (!file_->isOpen()) fail_in_file(path_, "finished twice");
  if (next_ != declared_.size())
    fail(std::to_string(next_) + " of " + std::to_string(declared_.size()) + " declared tensors written");
  file_->commit();
}

void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<SafetensorsWriter::Declared> declared;
  for (const auto& [name, value] : tensors) {
    if (!value.defined()) fail_in_file(path, "tensor " + quoted_excerpt(name) + " is undefined");
    declared.push_back({name, value.scalar_type(), value.sizes().vec()});
  }
  SafetensorsWriter writer(path, declared, metadata);
  for (const auto& pair : tensors) writer.write(pair.second);
  writer.finish();
}

}  // namespace aw
