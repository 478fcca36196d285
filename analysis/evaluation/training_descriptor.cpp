// analysis/evaluation/training_descriptor.cpp — Bird-Eye Figures 4–5 as a descriptor: the training and
// validation loss of each model's run, per epoch (and per --log-every report), read from the
// training.json that attention-cli train wrote into the model's folder (models/training/training_history.h).
#include "analysis/core/csv_field.h"
#include "analysis/core/registry.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/training/training_history.h"

#include <sstream>

namespace aw {

AnalysisDescriptor training_descriptor() {
  AnalysisDescriptor descriptor("training", "Training",
                                "Bird-Eye Figures 4–5: training and validation loss per epoch, from each model's "
                                "training.json");
  descriptor.models = ModelRequirement::AnyModel;
  descriptor.several_models = true;
  descriptor.outputs = {{"out", "csv", "model,metric,epoch,step,train_loss,valid_loss,valid_metric (default: stdout)"},
                        {"steps", "steps", "model,step,epoch,train_loss,auxiliary_loss,learning_rate of every report"}};
  descriptor.run = [](const AnalysisRequest& request) {
    std::ostringstream epochs, steps;
    epochs.precision(8);
    steps.precision(8);
    epochs << "model,metric,epoch,step,train_loss,valid_loss,valid_metric\n";
    steps << "model,step,epoch,train_loss,auxiliary_loss,learning_rate\n";
    auto json = nlohmann::json::array();
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
        epochs << csv_field(loaded->name) << "," << history.metric_name << "," << record.epoch << "," << record.step << ","
               << record.train_loss << "," << record.valid_loss << "," << record.valid_metric << "\n";
      for (const auto& record : history.steps)
        steps << csv_field(loaded->name) << "," << record.step << "," << record.epoch << "," << record.train_loss << ","
              << record.auxiliary_loss << "," << record.learning_rate << "\n";
      auto entry = history_json(history);
      entry["model"] = loaded->name;
      json.push_back(std::move(entry));
    }
    if (with_history == 0) throw Error(left_out.front());
    for (const auto& reason : left_out) request.tell(reason + " (left out)");
    AnalysisReport report;
    report.csv["csv"] = epochs.str();
    report.csv["steps"] = steps.str();
    report.json = json;
    return report;
  };
  return descriptor;
}

}  // namespace aw
