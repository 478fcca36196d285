// analysis/core/descriptor.h — the one contract every analysis implements, for every front end.
// A descriptor says what an analysis is called, which settings it takes (name, kind, default, range:
// the CLI's options, the GUI's form and the session file's keys all come from this list), which
// models and data it accepts (one check, one message), and how it runs: run(request) → report, the
// report holding the typed result, its CSVs and JSON, and layer × head scores where it has them.
// This header has no LibTorch and no Qt, so the window code can include it.
#pragma once

#include "models/progress.h"
#include "table/result_table.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aw {

struct LoadedModel;   // models/checkpoint/checkpoint.h
struct ModelConfig;   // models/nn/model_config.h

// ---- Settings -------------------------------------------------------------------------------

enum class FieldKind {
  Integer,  // whole number in [minimum, maximum]
  Number,   // real number (text, parsed by the analysis)
  Flag,     // on when given (the CLI's --switch, the GUI's check box)
  Choice,   // one of `choices`
  Text,     // free text ("0,0.2,mask", a sentence)
  Path,     // a file or folder (sessions store it relative to the session file)
  List,     // comma-separated words
};

// The kinds of model a setting means something for (a bit each): the window greys a setting the
// chosen models cannot use (a beam for a plain language model) and leaves it out of their run.
enum ModelKindBit : unsigned { kLanguageModels = 1, kClassifiers = 2, kTranslationModels = 4, kAnyModel = 7 };

// A setting that means something only while another one reads one of `values` ("choose-on" while
// the mode is all-but-one). The CLI refuses it otherwise with `refusal`; the window greys it and leaves
// it out of the run. A flag reads "1" when on and "" when off; any other setting its text, or its default.
struct FieldCondition {
  std::string field;
  std::vector<std::string> values;
  std::string refusal;  // the problem, as SettingError words it ("applies with --series only")
};

struct SettingField {
  std::string name;           // CLI option (--name), session key, GUI field: one identity
  FieldKind kind = FieldKind::Text;
  std::string label;          // for a form ("Window")
  std::string value_name;     // for the CLI usage ("N", "FILE")
  std::string help;           // one line
  std::string default_text;   // the value when not given; "" = none (the analysis decides, see help)
  std::vector<std::string> choices;
  int64_t minimum = std::numeric_limits<int64_t>::min();
  int64_t maximum = std::numeric_limits<int64_t>::max();
  bool required = false;
  bool in_form = true;        // false: a CLI-only action (prune --apply/--save, output files)
  unsigned applies_to = kAnyModel;  // ModelKindBit: the models it means something for
  std::vector<FieldCondition> applies_when;  // every one must hold
};

// The first of `field`'s conditions that the other settings, read through `value_of`, do not meet;
// nullptr when they all hold.
const FieldCondition* unmet_condition(const SettingField& field,
                                      const std::function<std::string(const std::string&)>& value_of);

// "a,b,,c" → {a, b, c}: how a List setting (and any comma list the front ends take) is read.
std::vector<std::string> split_list(const std::string& text);

// A bad setting: `field` names it, `problem` says what is wrong without naming it ("must be at
// least 1, got 0"). The CLI prints "attention-cli <command>: --<field> <problem>", the GUI
// "<label>: <problem>". A problem of several settings together has no field.
class SettingError : public std::runtime_error {
 public:
  SettingError(std::string field, const std::string& problem)
      : std::runtime_error(field.empty() ? problem : "--" + field + " " + problem),
        field_(std::move(field)),
        problem_(problem) {}
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string field_;
  std::string problem_;
};

// The settings of one run: the values given, by field name (text, as typed), checked against the
// descriptor's fields. Getters fall back to the field's default and validate on the way out.
class SettingValues {
 public:
  SettingValues() = default;
  explicit SettingValues(const std::vector<SettingField>* fields) : fields_(fields) {}

  void set(const std::string& name, const std::string& value) { values_[name] = value; }
  void set_flag(const std::string& name, bool on);
  void erase(const std::string& name) { values_.erase(name); }
  bool given(const std::string& name) const { return values_.count(name) > 0; }
  // Whether the analysis has a setting of that name.
  bool has_field(const std::string& name) const;
  const std::map<std::string, std::string>& values() const { return values_; }

  std::string text(const std::string& name) const;     // the value, or the default ("" if none)
  std::string required_text(const std::string& name) const;
  int64_t integer(const std::string& name) const;       // validated against minimum/maximum
  bool flag(const std::string& name) const;
  std::string choice(const std::string& name) const;    // validated against choices
  std::vector<std::string> list(const std::string& name) const;  // "a,b,,c" → {a, b, c}

  // Throws SettingError for an unknown name, a required field missing, a malformed integer, a
  // value outside its range or choices, or a setting given where its conditions do not hold: every
  // check a field's description allows.
  void validate() const;
  // What a condition on `name` reads: a flag "1" or "", any other setting its text or default.
  std::string condition_text(const std::string& name) const;

 private:
  const SettingField& field(const std::string& name) const;
  const std::vector<SettingField>* fields_ = nullptr;
  std::map<std::string, std::string> values_;
};

// ---- What an analysis accepts -----------------------------------------------------------------

enum class ModelRequirement {
  CausalAttention,            // stats, diag-sweep, top-tokens: causal self-attention, next-token rows
                              // (language models, translation decoders)
  LanguageModelOrClassifier,  // eval, ablate, importance, prune: perplexity or accuracy (translation
                              // models: perplexity of the reference translations)
  Lama,                       // word-weights, keywords: LAMA's per-word attention
  LanguageModel,              // patch: a language model's next-token logits
  TokenSelfAttention,         // head-types: token-to-token self-attention of one kind (language
                              // models, BERT-style classifiers and encoders; not translation models)
  TokenAttention,             // composition: token-to-token attention of any kind (translation models too)
  AnyModel,                   // training: reads the folder's training.json, runs nothing
};

enum class DataKind {
  Corpus,     // a text file cut into windows (language models) or label<TAB>text lines (classifiers)
  Labelled,   // label<TAB>text lines
  Sentences,  // a sentence, or a file of them
};

// "a bet_sf language model", "a bert classifier", "a bert encoder without a classification head".
std::string describe_model_kind(const ModelConfig& config);
// What a requirement asks for, in words: "a causal language model".
std::string requirement_text(ModelRequirement requirement);
// Whether a model of `config` is what an analysis with `requirement` can run on.
bool accepts(const ModelConfig& config, ModelRequirement requirement);
// Throws aw::Error "<dir>: <analysis> needs a causal language model; this checkpoint is …" when
// `loaded` is not what the analysis can run on (accepts() is false).
void require_model(const LoadedModel& loaded, const std::string& analysis, ModelRequirement requirement);

// ---- Running ----------------------------------------------------------------------------------

// Progress of the current phase ("vanilla_lm: batches"); returning false cancels the run.
using PhaseProgress = std::function<bool(int64_t done, int64_t total, const std::string& phase)>;

// Something an analysis tells on the way ("3 examples truncated to 256 tokens").
using NoteCallback = std::function<void(const std::string&)>;

struct AnalysisRequest {
  std::vector<const LoadedModel*> models;  // as given (the CLI's --model order)
  SettingValues settings;                  // head gates too: --heads-off (core/gate_settings.h)
  PhaseProgress progress;
  NoteCallback note;

  bool report(int64_t done, int64_t total, const std::string& phase) const {
    return !progress || progress(done, total, phase);
  }
  ProgressCallback phase(const std::string& name) const;  // (done, total) for a phase
  void tell(const std::string& message) const {
    if (note) note(message);
  }
};

// Typed layer × head scores: values[layer][head] (0-based), and which sign means damage.
struct HeadScores {
  std::string label;                        // "importance", "Δ perplexity"
  std::vector<std::vector<double>> values;
  int damage_sign = 1;  // +1: larger = removing the head hurts more; −1: smaller (Δ accuracy)
  int model = 0;        // index into the request's models (the GUI keeps its session index here)
  std::vector<std::vector<double>> damage() const;  // values × damage_sign
};

struct AnalysisReport {
  bool cancelled = false;
  ResultTables tables;                          // by output name ("csv" the main one, "summary", …)
  std::map<std::string, std::string> texts;     // plain-text outputs by name (eval's translations)
  std::string text;                             // the printed report, where the analysis has one (eval)
  nlohmann::json record;                        // eval: the record --json prints (else the tables' JSON)
  std::optional<HeadScores> head_scores;
  std::string description;                      // what was read ("reviews.tsv: 120 documents")
};

// A file the CLI can write: option --<option> takes a path and receives the CSV of tables[part]
// (or texts[part]).
struct OutputFile {
  std::string option;
  std::string part;
  std::string help;
};

// How the window's tab for an analysis chooses its models.
enum class TabModels {
  One,        // a "Model" chooser
  Two,        // "Model A" and "Model B", side by side (B skipped when it is A)
  EveryAble,  // no chooser: every loaded model able to run it (Table 1: the causal language models)
};

// What the desktop application needs to give an analysis a tab of its own.
struct DesktopTab {
  bool shown = true;                       // false: no tab of its own (eval, keywords)
  int order = 100;                         // its place among the window's tabs (lower first; ties: registry order)
  std::string group;                       // "": a tab of its own; else one tab shared by the group's analyses,
                                           // each an inner tab, placed where its first member would be ("Circuits")
  std::string description;                 // rich text over the form; empty: "<b>title.</b> summary."
  TabModels models = TabModels::One;
  std::vector<std::string> filled_fields;  // fields the tab fills itself (top tokens: the sentence)
  std::string sentence_field;              // the field a run takes the Attention tab's sentence in ("" = none)
  std::string score_label;                 // the heads panel's colouring from its head scores ("" = none)
  bool prefers_able = false;               // the chooser starts on the first model able to run it (LAMA)
  std::string legacy_id;                   // its id in sessions saved before descriptors ("ablation")
  // The report's other tables a person can switch the table to (part name → a short title):
  // prune's importance − oracle per step, its epoch series' curves.
  std::vector<std::pair<std::string, std::string>> other_tables;
};

struct AnalysisDescriptor {
  AnalysisDescriptor() = default;
  AnalysisDescriptor(std::string name_, std::string title_, std::string summary_)
      : name(std::move(name_)), title(std::move(title_)), summary(std::move(summary_)) {}

  std::string name;      // the CLI command and the registry key ("ablate")
  std::string title;     // a tab title ("Ablation")
  std::string summary;   // one line: the paper artefact and what it computes
  ModelRequirement models = ModelRequirement::LanguageModelOrClassifier;
  bool several_models = false;  // takes --model more than once (side by side)
  DataKind data = DataKind::Corpus;
  std::vector<SettingField> fields;
  std::vector<OutputFile> outputs{{"out", "csv", "the CSV (default: stdout)"}};
  std::string stdout_part = "csv";  // printed when --out is not given ("" = print `text`)
  std::string plot;                 // the plot kind of its main table (widgets/analysis_plots.h; "" = none)
  DesktopTab tab;
  // Its data batches can be shared out between processes (attention-cli --distributed,
  // models/distribution.h); every process computes the same report, rank 0 writes it.
  bool distributable = false;
  std::function<AnalysisReport(const AnalysisRequest&)> run;

  const SettingField* field(const std::string& name) const;
  SettingValues settings() const { return SettingValues(&fields); }
  // Whether it takes head gates (the --heads-off field): the window fills it from its heads panel.
  bool gated() const { return field("heads-off") != nullptr; }
  // Checks the request's models against `models` (and their number) and its head gates against the
  // models, then runs; the gates are recorded in every table's metadata (heads_off=…).
  AnalysisReport operator()(const AnalysisRequest& request) const;
};

}  // namespace aw
