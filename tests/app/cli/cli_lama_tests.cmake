# tests/app/cli/cli_lama_tests.cmake — attention-cli end to end for the LAMA work: training the three
# classifiers, eval with per-class F1 and confusion, word-weights, keywords, split, and their bad
# input (one error line, exit 1). Runs on the fixtures of cli_tests.cmake: tiny_lama and labelled_lama.tsv
# (6 documents, labels 1–3; w2 occurs 5 times: 3 × label 1, 2 × label 3; w3 twice, both label 1).
# (A "[" in a regex would make CMake join the following arguments, so "." stands for it.)
set(labelled ${fixtures}/labelled_lama.tsv)
set(tiny_train --train ${labelled} --valid ${labelled} --epochs 1 --batch 2 --window 8)

# Training the three classifiers, and the parameter count without training.
aw_cli_test(train_lama EXIT 0 REGEX "done: 3 steps, 1 epochs .*parameters; best valid accuracy [0-9.]+; saved to"
            ARGS train --arch lama ${tiny_train} --embedding-dim 8 --hidden 4 --heads 2 --mlp-hidden 8
                 --regularizer penal --out ${fixtures}/trained_lama)
# LAMA+ctx as its paper's §3.5 trains it: SGD with momentum and weight decay at a fixed rate, early stopping.
aw_cli_test(train_lama_paper_recipe EXIT 0 REGEX "done[^\n]*: [0-9]+ steps, [0-9] epochs .*best valid accuracy [0-9.]+; saved to"
            ARGS train --arch lama ${tiny_train} --embedding-dim 8 --hidden 4 --heads 2 --mlp-hidden 8 --context mean
                 --regularizer none --optimizer sgd --lr 0.05 --momentum 0.9 --weight-decay 1e-4 --schedule constant
                 --warmup 0 --patience 5 --out ${fixtures}/trained_lama_paper)
aw_cli_test(error_train_optimizer EXIT 1 STDERR_LINES 1 REGEX "--optimizer must be adam or sgd, got rmsprop"
            ARGS train --arch lama ${tiny_train} --optimizer rmsprop --out ${fixtures}/never_trained)
aw_cli_test(error_train_momentum_adam EXIT 1 STDERR_LINES 1
            REGEX "--momentum applies to --optimizer sgd \\(this run uses adam\\)"
            ARGS train --arch lama ${tiny_train} --momentum 0.5 --out ${fixtures}/never_trained)
aw_cli_test(error_train_patience EXIT 1 STDERR_LINES 1 REGEX "--patience"
            ARGS train --arch lama ${tiny_train} --patience -1 --out ${fixtures}/never_trained)
aw_cli_test(train_bigru_mean EXIT 0 REGEX "done: 3 steps, 1 epochs .*best valid accuracy"
            ARGS train --arch bigru_mean ${tiny_train} --embedding-dim 8 --hidden 4 --mlp-hidden 8 --out ${fixtures}/trained_bigru)
aw_cli_test(train_bigru_max EXIT 0 REGEX "done: 3 steps, 1 epochs .*best valid accuracy"
            ARGS train --arch bigru_max ${tiny_train} --embedding-dim 8 --hidden 4 --mlp-hidden 8 --out ${fixtures}/trained_bigru_max)
aw_cli_test(train_encoder_classifier EXIT 0 REGEX "done: 3 steps, 1 epochs .*best valid accuracy"
            ARGS train --arch encoder_classifier ${tiny_train} --layers 1 --heads 2 --d-model 8 --out ${fixtures}/trained_encoder)
aw_cli_test(train_dry_run EXIT 0 STDOUT_LINES 1 REGEX "^lama: [0-9]+ parameters \\(vocabulary 13, 3 classes\\)"
            ARGS train --arch lama ${tiny_train} --embedding-dim 8 --hidden 4 --heads 2 --dry-run)
aw_cli_test(train_dry_run_context_projection EXIT 0 REGEX "--embedding-dim 6 ≠ 2 × --hidden \\(8\\): the mean-embedding context goes through a learned 8×6 projection \\(the paper uses E = 2h"
            ARGS train --arch lama ${tiny_train} --embedding-dim 6 --hidden 4 --heads 2 --dry-run)
aw_cli_test(error_train_context_not_lama EXIT 1 STDERR_LINES 1 REGEX "--context applies to --arch lama only \\(this run trains bigru_mean\\)"
            ARGS train --arch bigru_mean ${tiny_train} --context mean --out ${fixtures}/never)
aw_cli_test(error_train_bad_regularizer EXIT 1 STDERR_LINES 1 REGEX "key 'regularizer' must be one of none, penal, emb, got \"l2\""
            ARGS train --arch lama ${tiny_train} --regularizer l2 --out ${fixtures}/never)
aw_cli_test(error_train_bad_valid_label EXIT 1 STDERR_LINES 1 REGEX "bad_label.tsv: line 2: label '7' is not one of the model's classes \\(1, 2, 3\\)"
            ARGS train --arch lama --train ${labelled} --valid ${fixtures}/bad_label.tsv --embedding-dim 8 --hidden 4
                 --out ${fixtures}/never)

# eval of a classifier: accuracy, per-class F1, confusion matrix.
aw_cli_test(eval_classifier EXIT 0 STDOUT_LINES 11
            REGEX "accuracy [0-9.]+ \\(mean cross-entropy [0-9.]+ over 6 examples\\).macro F1 [0-9.]+.class +precision +recall +F1 +support.1 .*confusion \\(rows: true class, columns: predicted\\)"
            ARGS eval --model ${fixtures}/tiny_lama --text ${labelled})
aw_cli_test(eval_classifier_json EXIT 0 REGEX "\"confusion\": ..*\"macro_f1\": [0-9.e-]+.*\"per_class\": ."
            ARGS eval --model ${fixtures}/tiny_lama --text ${labelled} --json)

# word-weights and keywords.
aw_cli_test(word_weights_summary EXIT 0 STDOUT_LINES 4 REGEX "^word,label,count,mean,median\nw2,1,3,[0-9.e-]+,[0-9.e-]+\nw2,3,2,[0-9.e-]+,[0-9.e-]+\nw3,1,2,"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2,w3)
aw_cli_test(word_weights_out EXIT 0 REGEX "written to" OUT_FILE ${fixtures}/weights.csv
            OUT_FILE_REGEX "^word,label,weight\nw2,1,[0-9.e-]+\nw2,1,[0-9.e-]+\nw2,1,[0-9.e-]+\nw2,3,[0-9.e-]+\nw2,3,"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2 --head 2 --scale length
                 --out ${fixtures}/weights.csv --summary ${fixtures}/weights_summary.csv --density ${fixtures}/weights_density.csv)
aw_cli_test(word_weights_shift EXIT 0 REGEX "written to" OUT_FILE ${fixtures}/shift.csv
            OUT_FILE_REGEX "^word,label_a,label_b,count_a,count_b,median_a,median_b,U,effect,p_value,p_adjusted\nw2,1,3,3,2,[0-9.e-]+,[0-9.e-]+,[0-9.]+,[0-9.]+,[0-9.e-]+,[0-9.e-]+\n$"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2,w3 --shift ${fixtures}/shift.csv)
# (A regex without square brackets: an unbalanced one would hide the arguments after it from CMake's lists.)
aw_cli_test(word_weights_json_parts EXIT 0 REGEX "^.\n  \"columns\": .\n    \"word\",.*\"parts\": .\n    \"density\": .*\"occurrences\": .\n      \"columns\": .\n        \"word\",\n        \"label\",\n        \"weight\"\n      .,\n      \"rows\": ."
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2,w3 --json)
aw_cli_test(word_weights_density EXIT 0 REGEX "written to" OUT_FILE ${fixtures}/density.csv
            OUT_FILE_REGEX "^word,label,bandwidth,x,density\nw3,1,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\nw3,1,"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w3 --points 5 --density ${fixtures}/density.csv)
aw_cli_test(keywords EXIT 0 STDOUT_LINES 4 REGEX "^label,rank,word,mean_weight,count\n1,1,w[0-9]+,[0-9.e-]+,[0-9]+\n2,1,w[0-9]+,[0-9.e-]+,[0-9]+\n3,1,w"
            ARGS keywords --model ${fixtures}/tiny_lama --data ${labelled} --top 1 --min-count 1)
aw_cli_test(keywords_min_count EXIT 0 STDOUT_LINES 2 REGEX "^label,rank,word,mean_weight,count\n1,1,w2,[0-9.e-]+,3\n"
            ARGS keywords --model ${fixtures}/tiny_lama --data ${labelled} --min-count 3 --head 1)
aw_cli_test(ablate_lama EXIT 0 STDOUT_LINES 5 REGEX "^# model=tiny_lama, metric=accuracy, baseline=[0-9.]+, mode=single, bootstrap=1000, seed=1, correction=holm, unit=examples, units=[0-9]+, min_units=2\nlayer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\n1,1,.*1,3,"
            ARGS ablate --model ${fixtures}/tiny_lama --text ${labelled} --min-units 2)
aw_cli_test(split EXIT 0 REGEX "split .*labelled_lama.tsv \\(seed 3\\): 4 train, 1 valid, 1 test lines"
            ARGS split --data ${labelled} --out ${fixtures}/split --seed 3 --percent 70,15,15)

# Bad input.
aw_cli_test(error_word_weights_lm EXIT 1 STDERR_LINES 1 REGEX "error: .*tiny_lm: word-weights needs a LAMA classifier \\(model_type lama\\), whose attention is one weight per word and head; this checkpoint is a transformer_lm language model"
            ARGS word-weights --model ${fixtures}/tiny_lm --data ${labelled} --words w2)
aw_cli_test(error_word_weights_no_words EXIT 1 STDERR_LINES 1 REGEX "attention-cli word-weights: --words: no words given"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words ,)
aw_cli_test(error_word_weights_unknown_word EXIT 1 STDERR_LINES 1 REGEX "--words: 'zebra' is not in the model's vocabulary"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2,zebra)
aw_cli_test(error_word_weights_bad_label EXIT 1 STDERR_LINES 1 REGEX "bad_label.tsv: line 2: label '7' is not one of the model's classes \\(1, 2, 3\\)"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${fixtures}/bad_label.tsv --words w2)
aw_cli_test(error_word_weights_head EXIT 1 STDERR_LINES 1 REGEX "attention-cli word-weights: --head must be mean or a head number 1..3, got '4'"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2 --head 4)
aw_cli_test(error_word_weights_scale EXIT 1 STDERR_LINES 1 REGEX "attention-cli word-weights: --scale must be none or length, got 'log'"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2 --scale log)
aw_cli_test(error_keywords_missing_data EXIT 1 STDERR_LINES 1 REGEX "nothing.tsv: cannot be read"
            ARGS keywords --model ${fixtures}/tiny_lama --data ${fixtures}/nothing.tsv)
aw_cli_test(error_stats_lama EXIT 1 STDERR_LINES 1 REGEX "/tiny_lama: stats needs a causal language model or a translation model. this checkpoint is a lama classifier\n"
            ARGS stats --model ${fixtures}/tiny_lama --text ${labelled})
aw_cli_test(error_split_percent EXIT 1 STDERR_LINES 1 REGEX "--percent needs three numbers that sum to 100, got '80,30,10'"
            ARGS split --data ${labelled} --out ${fixtures}/never --percent 80,30,10)

# The shipped LAMA sample on our own six demo reviews (sample_data/demo_reviews.tsv): the paper's
# six words, one summary row per (word, label) that occurs; eval classifies all six (15 lines for
# 5 classes); keywords' header.
aw_cli_test(samples_lama_word_weights EXIT 0 STDOUT_LINES 7
            REGEX "^word,label,count,mean,median\namazing,5,2,[0-9.e-]+,[0-9.e-]+\nhappy,5,2,.*worst,1,1,"
            ARGS word-weights --model ${samples}/lama_amazon --data ${samples}/demo_reviews.tsv
                 --words amazing,happy,recommended,poor,terrible,worst)
aw_cli_test(samples_lama_eval EXIT 0 STDOUT_LINES 15 REGEX "accuracy 0.8333 \\(mean cross-entropy [0-9.]+ over 6 examples\\)"
            ARGS eval --model ${samples}/lama_amazon --text ${samples}/demo_reviews.tsv)
aw_cli_test(samples_lama_keywords EXIT 0 REGEX "^label,rank,word,mean_weight,count\n1,1,"
            ARGS keywords --model ${samples}/lama_amazon --data ${samples}/demo_reviews.tsv --min-count 1 --top 2)
aw_cli_test(samples_lama_info EXIT 0 REGEX "architecture lama.*recurrent +embeddings 128 → bi-GRU 2 × 64, context: word-embedding mean → MLP 512 \\(max 256 words\\).*classes +5"
            ARGS info --model ${samples}/lama_amazon)

# word-weights also writes the keywords of the same pass, and reads one part of the seeded split.
aw_cli_test(word_weights_keywords_part EXIT 0 REGEX "word-weights: written to .*keywords_part.csv"
            OUT_FILE ${fixtures}/keywords_part.csv OUT_FILE_REGEX "^label,rank,word,mean_weight,count\n"
            ARGS word-weights --model ${fixtures}/tiny_lama --data ${labelled} --words w2 --part train --seed 2
                 --min-count 1 --keywords ${fixtures}/keywords_part.csv)
