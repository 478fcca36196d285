// analysis/evaluation/training_descriptor.cpp — Bird-Eye Figures 4–5 as a descriptor: the training and
// validation loss of each model's run, per epoch (and per --log-every report), read from the
// training.json that attention-cli train wrote into the model's folder (models/training/training_history.h).
#include "analysis/core/registry.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/training/training_history.h"

namespace aw {

AnalysisDescriptor training_descriptor() {
  AnalysisDescriptor descriptor("training", "Training",
                                "Bird-Eye Figures 4–5: training and validation loss per epoch, from each model's "
                                "training.json");
  descriptor.models = ModelRequirement::AnyModel;
  descriptor.several_models = true;
  descriptor.outputs = {{"out", "csv", "model,metric,epoch,step,train_loss,valid_loss,valid_metric (default: stdout)"},
                        {"steps", "steps", "model,step,epoch,train_loss,auxiliary_loss,learning_rate of every report"}};
  descriptor.plot = "training";
  descriptor.tab.order = 70;
  descriptor.tab.other_tables = {{"steps", "losses per logged step"}};
  descriptor.tab.models = TabModels::EveryAble;
  descriptor.tab.description =
      "<b>Bird-Eye Figures 4–5.</b> Training and validation loss per epoch of every loaded model's run, read from "
      "the training.json that <i>attention-cli train</i> wrote into its folder (models trained before the history "
      "was kept are left out).";
  descriptor.run = [](const AnalysisRequest& request) {
    constexpr int kDigits = 8;  // losses and rates as training.json keeps them
    ResultTable epochs, steps;
    epochs.add_column("model", ColumnType::Text).add_column("metric", ColumnType::Text);
    epochs.add_column("epoch", ColumnType::Integer).add_column("step", ColumnType::Integer);
    for (const char* name : {"train_loss", "valid_loss", "valid_metric"}) epochs.add_column(name, ColumnType::Number, kDigits);
    steps.add_column("model", ColumnType::Text).add_column("step", ColumnType::Integer).add_column("epoch", ColumnType::Integer);
    for (const char* name : {"train_loss", "auxiliary_loss", "learning_rate"})
      steps.add_column(name, ColumnType::Number, kDigits);
    std::vector<std::string> left_out;  // folders without a history, said when others have one
    int64_t with_history = 0;
    for (const auto* loaded : request.models) {
      TrainingHistory history;
      try {
        history = read_training_history(loaded->dir);
      } catch (const Error& error) {  // one folder without a history does not stop the others
        left_out.push_back(error.what());
        continue;
      }
      ++with_history;
      for (const auto& record : history.epochs)
        epochs.row(loaded->name, history.metric_name, record.epoch, record.step, record.train_loss, record.valid_loss,
                   record.valid_metric);
      for (const auto& record : history.steps)
        steps.row(loaded->name, record.step, record.epoch, record.train_loss, record.auxiliary_loss, record.learning_rate);
    }
    if (with_history == 0) throw Error(left_out.front());
    for (const auto& reason : left_out) request.tell(reason + " (left out)");
    AnalysisReport report;
    report.tables["csv"] = std::move(epochs);
    report.tables["steps"] = std::move(steps);
    return report;
  };
  return descriptor;
}

}  // namespace aw
