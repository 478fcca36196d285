// app/gui/hub_model_dialog.cpp — see hub_model_dialog.h.
#include "app/gui/hub_model_dialog.h"

#include "app/gui/model_session.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace aw {

HubModelDialog::HubModelDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("Open from the Hugging Face cache");
  const auto cached = ModelSession::cachedHubModels();
  const bool empty = cached.names.isEmpty();
  where_ = new QLabel(empty ? QString("The Hugging Face cache (%1) holds no model. Fetch one with: "
                                      "hf download ORG/NAME (or set HF_HUB_CACHE or HF_HOME).")
                                  .arg(cached.cache)
                            : QString("Models in %1 (their main revision):").arg(cached.cache),
                      this);
  where_->setWordWrap(true);
  where_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  list_ = new QListWidget(this);
  list_->addItems(cached.names);
  folders_ = cached.folders;
  list_->setVisible(!empty);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  auto* open = buttons_->button(QDialogButtonBox::Open);
  open->setEnabled(false);
  connect(list_, &QListWidget::currentRowChanged, this, [open](int row) { open->setEnabled(row >= 0); });
  connect(list_, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(where_);
  layout->addWidget(list_, 1);
  layout->addWidget(buttons_);
  resize(520, empty ? 140 : 360);
}

QString HubModelDialog::chosenFolder() const {
  const int row = list_->currentRow();
  return row >= 0 && row < folders_.size() ? folders_[row] : QString();
}

}  // namespace aw
