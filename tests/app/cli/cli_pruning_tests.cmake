# tests/app/cli/cli_pruning_tests.cmake — Michel §6 and Figure 3 from the command line: a run that keeps
# every epoch, its loss history, importance and pruning over the epoch series, the two pruning orders
# tested against each other (--between), and their bad input. Uses cli_tests.cmake's fixtures.
# Training dynamics (Michel §6): every epoch kept, the loss history, and analyses over the series.
aw_cli_test(train_keep_epochs EXIT 0 REGEX "^done: 6 steps, 3 epochs.*epoch 3/3 done: step 6, valid perplexity [0-9.]+ \\(loss [0-9.]+\\)\n"
            OUT_FILE ${fixtures}/epochs_lm/epoch-2/training.json
            OUT_FILE_REGEX "\"history\": {\n +\"epochs\": .\n +{\n +\"epoch\": 1,"
            ARGS train --arch transformer_lm --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt --layers 1
                 --heads 2 --d-model 8 --d-ff 16 --window 8 --epochs 3 --batch 2 --log-every 1 --keep-epochs
                 --out ${fixtures}/epochs_lm)
aw_cli_test(training_curves EXIT 0 STDOUT_LINES 4
            REGEX "^model,metric,epoch,step,train_loss,valid_loss,valid_metric\nepochs_lm,perplexity,1,2,[0-9.]+,[0-9.]+,[0-9.]+\nepochs_lm,perplexity,2,4,[^\n]+\nepochs_lm,perplexity,3,6,[^\n]+\n.*tiny_lm: has no training.json \\(a folder written by attention-cli train has one\\) \\(left out\\)"
            OUT_FILE ${fixtures}/training_steps.csv
            OUT_FILE_REGEX "^model,step,epoch,train_loss,auxiliary_loss,learning_rate\nepochs_lm,1,1,[0-9.]+,0,[0-9.e-]+\n"
            ARGS training --model ${fixtures}/epochs_lm --model ${fixtures}/tiny_lm --steps ${fixtures}/training_steps.csv)
aw_cli_test(error_training_no_history EXIT 1 STDERR_LINES 1
            REGEX "tiny_lm: has no training.json \\(a folder written by attention-cli train has one\\)\n"
            ARGS training --model ${fixtures}/tiny_lm)
aw_cli_test(prune_series EXIT 0 STDOUT_LINES 5
            REGEX "^# model=epochs_lm, metric=perplexity, max_drop=20, series=[^\n]*/epochs_lm\nepoch,step,order,base_metric,prunable_percent,prunable_heads,metric_at_prunable\n1,2,importance,[0-9.]+,(0|50|100),[0-2],[0-9.]+\n2,4,importance,[^\n]+\n3,6,importance,[^\n]+\n"
            OUT_FILE ${fixtures}/series_curves.csv
            OUT_FILE_REGEX "^# model=epochs_lm, [^\n]*bootstrap=50[^\n]*\nepoch,step,order,percent_pruned,heads_pruned,metric,delta,delta_low,[^\n]*\n1,2,importance,0,0,"
            ARGS prune --model ${fixtures}/epochs_lm --series --max-drop 20 --order importance --step 50 --bootstrap 50
                 --text ${fixtures}/corpus.txt --window 8 --curves ${fixtures}/series_curves.csv --min-units 2)
aw_cli_test(prune_series_share_change EXIT 0
            REGEX "^# model=epochs_lm, metric=perplexity, max_drop=20, series="
            OUT_FILE ${fixtures}/series_change.csv
            OUT_FILE_REGEX "^# model=epochs_lm, [^\n]*bootstrap=50[^\n]*correction=holm[^\n]*\norder,first_epoch,last_epoch,first_percent,last_percent,delta,delta_low,delta_high,p_value,p_adjusted,significant\nimportance,1,3,(0|50|100),(0|50|100),-?[0-9]+,"
            ARGS prune --model ${fixtures}/epochs_lm --series --max-drop 20 --order importance --step 50 --bootstrap 50
                 --text ${fixtures}/corpus.txt --window 8 --share-change ${fixtures}/series_change.csv --min-units 2)
aw_cli_test(importance_series EXIT 0 STDOUT_LINES 8
            REGEX "^# model=epochs_lm, normalized=true, series=[^\n]*/epochs_lm\nepoch,step,layer,head,importance\n1,2,1,1,[0-9.e-]+\n1,2,1,2,[^\n]+\n2,4,1,1,[^\n]+\n2,4,1,2,[^\n]+\n3,6,1,1,"
            ARGS importance --model ${fixtures}/epochs_lm --series --text ${fixtures}/corpus.txt --window 8)
# They read the run cli.train_keep_epochs trains: a fixture, so ctest runs it first (and with -R alone).
set_tests_properties(cli.train_keep_epochs PROPERTIES FIXTURES_SETUP epochs_model)
set_tests_properties(cli.training_curves cli.prune_series cli.prune_series_share_change cli.importance_series
                     PROPERTIES FIXTURES_REQUIRED "cli_models;epochs_model")
aw_cli_test(error_prune_series_without_epochs EXIT 1 STDERR_LINES 1
            REGEX "tiny_lm: has no epoch-N checkpoint folders \\(train with --keep-epochs to keep one per epoch\\)\n"
            ARGS prune --model ${fixtures}/tiny_lm --series --text ${fixtures}/corpus.txt)
aw_cli_test(error_prune_series_order_from EXIT 1 STDERR_LINES 1
            REGEX "--series ranks each epoch's model on its own; leave --order-from out\n"
            ARGS prune --model ${fixtures}/tiny_lm --series --text ${fixtures}/corpus.txt --order-from ${fixtures}/stats.csv)
# Michel Figure 3's two orders against each other at each step (--between), on the same windows.
aw_cli_test(prune_between_orders EXIT 0
            REGEX "written to [^\n]*prune_between.csv"
            OUT_FILE ${fixtures}/prune_between.csv
            OUT_FILE_REGEX "^# model=tiny_lm, metric=perplexity, difference=importance - oracle, bootstrap=50, [^\n]*\npercent_pruned,heads_pruned,metric_importance,metric_oracle,delta,delta_low,delta_high,p_value,p_adjusted,significant\n25,[^\n]+\n50,[^\n]+\n75,[^\n]+\n$"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --step 25 --order both
                 --bootstrap 50 --min-units 2 --out ${fixtures}/prune_both.csv --between ${fixtures}/prune_between.csv)
aw_cli_test(error_prune_between_one_order EXIT 1 STDERR_LINES 1
            REGEX "prune: --between has nothing to write for tiny_lm \\(with --order both: at each step, importance − oracle"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --order importance
                 --bootstrap 0 --between ${fixtures}/never.csv)
aw_cli_test(error_prune_max_drop_without_series EXIT 1 STDERR_LINES 1 REGEX "--max-drop applies with --series only\n"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --max-drop 5)
