// app/gui/hub_model_dialog.h — File ▸ Open from the Hugging Face cache…: the models the local Hub cache
// holds (ModelSession::cachedHubModels, from models/checkpoint/hub_cache.h), by name, to open one; where the cache is, and how to fetch a
// model, when it holds none. Nothing here reaches the network.
#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>

class QDialogButtonBox;
class QLabel;
class QListWidget;

namespace aw {

class HubModelDialog : public QDialog {
  Q_OBJECT

 public:
  explicit HubModelDialog(QWidget* parent = nullptr);

  // The chosen model's snapshot folder (what openCheckpoint opens); empty before a choice.
  QString chosenFolder() const;
  QListWidget* list() const { return list_; }
  QLabel* where() const { return where_; }

 private:
  QLabel* where_ = nullptr;
  QListWidget* list_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  QStringList folders_;  // beside the list's rows
};

}  // namespace aw
