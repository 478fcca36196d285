// analysis/core/descriptor.cpp — see descriptor.h.
#include "analysis/core/descriptor.h"

#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <algorithm>
#include <sstream>

namespace aw {
namespace {

std::string join_choices(const std::vector<std::string>& choices) {
  std::string joined;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) joined += i + 1 == choices.size() ? " or " : ", ";
    joined += choices[i];
  }
  return joined;
}

}  // namespace

void SettingValues::set_flag(const std::string& name, bool on) {
  if (on) values_[name] = "";
  else values_.erase(name);
}

const SettingField& SettingValues::field(const std::string& name) const {
  if (fields_)
    for (const auto& field : *fields_)
      if (field.name == name) return field;
  throw SettingError(name, "is not a setting of this analysis");
}

bool SettingValues::has_field(const std::string& name) const {
  if (fields_)
    for (const auto& field : *fields_)
      if (field.name == name) return true;
  return false;
}

std::string SettingValues::text(const std::string& name) const {
  const auto& described = field(name);
  const auto found = values_.find(name);
  return found == values_.end() ? described.default_text : found->second;
}

std::string SettingValues::required_text(const std::string& name) const {
  const auto value = text(name);
  if (value.empty()) throw SettingError(name, "is required");
  return value;
}

int64_t SettingValues::integer(const std::string& name) const {
  const auto& described = field(name);
  const auto value_text = text(name);
  int64_t value = 0;
  if (!parse_integer(value_text, value))
    throw SettingError(name, "expects an integer, got '" + value_text + "'");
  if (value < described.minimum)
    throw SettingError(name, "must be at least " + std::to_string(described.minimum) + ", got " + value_text);
  if (value > described.maximum)
    throw SettingError(name, "must be at most " + std::to_string(described.maximum) + ", got " + value_text);
  return value;
}

bool SettingValues::flag(const std::string& name) const {
  field(name);
  return values_.count(name) > 0;
}

std::string SettingValues::choice(const std::string& name) const {
  const auto& described = field(name);
  const auto value = text(name);
  for (const auto& allowed : described.choices)
    if (allowed == value) return value;
  throw SettingError(name, "must be " + join_choices(described.choices) + ", got '" + value + "'");
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::vector<std::string> SettingValues::list(const std::string& name) const { return split_list(text(name)); }

void SettingValues::validate() const {
  for (const auto& [name, value] : values_) field(name);
  if (!fields_) return;
  for (const auto& described : *fields_) {
    if (described.required && text(described.name).empty()) throw SettingError(described.name, "is required");
    if (!given(described.name) && described.default_text.empty()) continue;
    if (described.kind == FieldKind::Integer) integer(described.name);
    if (described.kind == FieldKind::Choice) choice(described.name);
  }
  const auto value_of = [this](const std::string& other) { return condition_text(other); };
  for (const auto& described : *fields_)
    if (given(described.name))
      if (const auto* unmet = unmet_condition(described, value_of)) throw SettingError(described.name, unmet->refusal);
}

std::string SettingValues::condition_text(const std::string& name) const {
  if (field(name).kind == FieldKind::Flag) return flag(name) ? "1" : "";
  return text(name);
}

const FieldCondition* unmet_condition(const SettingField& field,
                                      const std::function<std::string(const std::string&)>& value_of) {
  for (const auto& condition : field.applies_when) {
    const auto value = value_of(condition.field);
    if (std::find(condition.values.begin(), condition.values.end(), value) == condition.values.end()) return &condition;
  }
  return nullptr;
}

std::string describe_model_kind(const ModelConfig& config) {
  if (config.is_classifier()) return "a " + config.family_name() + " classifier";
  if (config.is_language_model()) return "a " + config.family_name() + " language model";
  if (config.is_translation()) return "a " + config.family_name() + " translation model";
  return "a " + config.family_name() + " encoder without a classification head";
}

std::string requirement_text(ModelRequirement requirement) {
  switch (requirement) {
    case ModelRequirement::CausalAttention: return "a causal language model or a translation model";
    case ModelRequirement::LanguageModelOrClassifier: return "a language model, a classifier or a translation model";
    case ModelRequirement::Lama: return "a LAMA classifier (model_type lama), whose attention is one weight per word and head";
    case ModelRequirement::LanguageModel: return "a language model";
    case ModelRequirement::TokenSelfAttention: return "token-to-token self-attention (a language model, or a BERT-style classifier or encoder)";
    case ModelRequirement::TokenAttention:
      return "token-to-token attention (a language model, a BERT-style classifier or encoder, or a translation model)";
    case ModelRequirement::AnyModel: return "any checkpoint folder";
  }
  return "";
}

bool accepts(const ModelConfig& config, ModelRequirement requirement) {
  switch (requirement) {
    case ModelRequirement::CausalAttention: return config.is_language_model() || config.is_translation();
    case ModelRequirement::LanguageModelOrClassifier:
      return config.is_language_model() || config.is_classifier() || config.is_translation();
    case ModelRequirement::Lama: return config.has_lama_attention();
    case ModelRequirement::LanguageModel: return config.is_language_model();
    case ModelRequirement::TokenSelfAttention: return config.has_token_attention() && !config.is_translation();
    case ModelRequirement::TokenAttention: return config.has_token_attention();
    case ModelRequirement::AnyModel: return true;
  }
  return false;
}

void require_model(const LoadedModel& loaded, const std::string& analysis, ModelRequirement requirement) {
  const auto& config = loaded.config;
  if (accepts(config, requirement)) return;
  throw Error(loaded.dir + ": " + analysis + " needs " + requirement_text(requirement) + "; this checkpoint is " +
              describe_model_kind(config));
}

ProgressCallback AnalysisRequest::phase(const std::string& name) const {
  return [this, name](int64_t done, int64_t total) { return report(done, total, name); };
}

std::vector<std::vector<double>> HeadScores::damage() const {
  auto signed_values = values;
  for (auto& layer : signed_values)
    for (auto& value : layer) value *= damage_sign;
  return signed_values;
}

const SettingField* AnalysisDescriptor::field(const std::string& name) const {
  for (const auto& described : fields)
    if (described.name == name) return &described;
  return nullptr;
}

AnalysisReport AnalysisDescriptor::operator()(const AnalysisRequest& request) const {
  if (request.models.empty()) throw Error(name + " needs a model");
  if (request.models.size() > 1 && !several_models)
    throw Error(name + " takes one model, got " + std::to_string(request.models.size()));
  for (const auto* loaded : request.models) require_model(*loaded, name, models);
  request.settings.validate();
  // The gates are checked against the models before anything runs, and said in every table.
  std::vector<HeadsOffGroup> heads_off;
  const auto resolved = request_heads_off(request);
  for (size_t m = 0; m < resolved.size(); ++m)
    heads_off.push_back(heads_off_group(resolved[m], request.models[m]->config));
  auto report = run(request);
  const auto recorded = heads_off_text(heads_off);
  if (!recorded.empty()) {
    for (auto& [part, table] : report.tables) table.meta("heads_off", recorded);
    if (report.record.is_object()) report.record["heads_off"] = recorded;
  }
  return report;
}

}  // namespace aw
