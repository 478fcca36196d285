# tests/app/cli/cli_circuits_tests.cmake — `composition` and `token-attribution` from the command line:
# the tables' layout on the tiny models, and bad input as one line (their numbers against Hugging Face
# and hand-worked cases: tests/analysis/circuits/).
set(circuit_files ${CMAKE_CURRENT_BINARY_DIR}/circuit_fixtures)  # not in ${fixtures}: write_fixtures owns that folder
file(WRITE ${circuit_files}/text.txt "w2 w3 w4 w5 w2 w3\n")
aw_cli_test(composition EXIT 0 STDOUT_LINES 11
            REGEX "^# model=tiny_lm, chance_mean=0\\.[0-9]+, chance_sd=[0-9.e-]+, chance_p95=[0-9.]+, chance_p99=[0-9.]+, chance_draws=200, seed=3, folded=reading norm weights folded into W_Q, W_K, W_V; W_O and W_E centred \\(LayerNorm\\)\nsender_layer,sender_head,receiver_layer,receiver_head,q,k,v,q_chance,k_chance,v_chance\n1,1,2,1,0\\.[0-9]+,.*\n1,3,2,3,"
            ARGS composition --model ${fixtures}/tiny_lm --chance-draws 200 --seed 3)
aw_cli_test(composition_heads EXIT 0
            OUT_FILE ${circuit_files}/heads.csv
            OUT_FILE_REGEX "^# model=tiny_lm, chance_mean=0\\.[0-9]+, span=16\nlayer,head,copying,positive_share,positional_offset,positional_weight,q_out,k_out,v_out,q_in,k_in,v_in\n1,1,-?[0-9.e-]+,[0-9.e-]+,-?[0-9]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,,,\n.*\n2,3,-?[0-9.e-]+,[0-9.e-]+,-?[0-9]+,[0-9.e-]+,,,,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\n$"
            ARGS composition --model ${fixtures}/tiny_lm --span 16 --heads-out ${circuit_files}/heads.csv)
aw_cli_test(composition_bert EXIT 0 REGEX "folded=post-norm model: no norm folded\n"
            ARGS composition --model ${fixtures}/tiny_bert_classifier)
# A translation model by attention kind: encoder heads into later encoder heads (q, k, v) and into
# cross-attention's keys and values (q blank); Marian's 4-wide encoder and 8-wide decoder heads each
# with their own chance.
aw_cli_test(composition_translation EXIT 0
            REGEX "chance_mean_by_widths=receiver dh 4 sender dh 4: 0\\.[0-9]+; receiver dh 8 sender dh 4: 0\\.[0-9]+; receiver dh 8 sender dh 8: 0\\.[0-9]+, folded=post-norm model: no norm folded, encoder_layers=2, streams=[^\n]+\nsender_kind,sender_layer,sender_head,receiver_kind,receiver_layer,receiver_head,q,k,v,q_chance,k_chance,v_chance\nenc,1,1,enc,2,1,0\\.[0-9]+,0\\.[0-9]+,0\\.[0-9]+,[0-9.]+,[0-9.]+,[0-9.]+\n.*\nenc,1,1,cross,1,1,,0\\.[0-9]+,0\\.[0-9]+,,[0-9.]+,[0-9.]+\n.*\ndec,1,1,cross,1,1,0\\.[0-9]+,,,[0-9.]+,,\n"
            ARGS composition --model ${PROJECT_SOURCE_DIR}/tests/fixtures/hf/marian_tiny --chance-draws 100)
aw_cli_test(token_attribution EXIT 0 STDOUT_LINES 7
            REGEX "^# model=tiny_lm, target=[^,]+, position=4, logit=[0-9.e-]+, probability=[0-9.e-]+\nposition,token,attention,rollout,flow,gradient\n0,w2,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\n.*\n4,w6,"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5 w6")
aw_cli_test(token_attribution_curves EXIT 0
            OUT_FILE ${circuit_files}/areas.csv
            OUT_FILE_REGEX "^# model=tiny_lm, target=w4, position=3, random_orders=3, seed=2\nmethod,deletion_area,insertion_area\nrollout,[0-9.e-]+,[0-9.e-]+\nrandom,[0-9.e-]+,[0-9.e-]+\n$"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text-file ${circuit_files}/text.txt --position 3
                 --target w4 --methods rollout --random-orders 3 --seed 2 --summary-out ${circuit_files}/areas.csv)
# A translation model: the source's tokens, then the decoder's (its start, then the given translation).
set(marian_tiny ${PROJECT_SOURCE_DIR}/tests/fixtures/hf/marian_tiny)
aw_cli_test(token_attribution_translation EXIT 0
            REGEX "^# model=marian_tiny, target=[^,]+, position=4, logit=[0-9.e-]+, probability=[0-9.e-]+\nside,position,token,attention,rollout,flow,gradient\nsource,0,[^,]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+\n(source,[^\n]+\n)*source,[0-9]+,</s>,[^\n]+\ntarget,0,<pad>,[^\n]+\n(target,[^\n]+\n)*target,4,"
            ARGS token-attribution --model ${marian_tiny} --text "I am here." --translation "Ich")
aw_cli_test(token_attribution_translation_curves EXIT 0
            OUT_FILE ${circuit_files}/translation_curves.csv
            OUT_FILE_REGEX "^# model=marian_tiny, target=[^,]+, position=0\nmethod,curve,removed,share_removed,probability\ngradient,deletion,0,0,[0-9.e-]+\n"
            ARGS token-attribution --model ${marian_tiny} --text "I am here." --position 0 --methods gradient
                 --curves-out ${circuit_files}/translation_curves.csv)
aw_cli_test(token_attribution_classifier EXIT 0 REGEX "^# model=tiny_bert_classifier, target=[^,]+, logit="
            ARGS token-attribution --model ${fixtures}/tiny_bert_classifier --text "w2 w3 w4")

# Bad input.
aw_cli_test(error_composition_lama EXIT 1 STDERR_LINES 1
            REGEX "tiny_lama: composition needs token-to-token attention \\(a language model, a BERT-style classifier or encoder, or a translation model\\); this checkpoint is a lama"
            ARGS composition --model ${fixtures}/tiny_lama)
aw_cli_test(error_token_attribution_lama EXIT 1 STDERR_LINES 1
            REGEX "tiny_lama: token-attribution needs token-to-token attention \\(a language model, a BERT-style classifier or encoder, or a translation model\\); this checkpoint is a lama"
            ARGS token-attribution --model ${fixtures}/tiny_lama --text "w2 w3")
aw_cli_test(error_token_attribution_encoder EXIT 1 STDERR_LINES 1
            REGEX "tiny_bert_encoder: token-attribution explains a language model's or a translation model's prediction, or a classifier's class; this checkpoint is a bert encoder"
            ARGS token-attribution --model ${fixtures}/tiny_bert_encoder --text "w2 w3")
aw_cli_test(error_token_attribution_target EXIT 1 STDERR_LINES 1
            REGEX "--target 'w2 w3' is 2 tokens for tiny_lm \\('w2', 'w3'\\); a target is one token\n"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2 w3 w4" --target "w2 w3")
aw_cli_test(error_token_attribution_class EXIT 1 STDERR_LINES 1
            REGEX "--target 'nine' is not one of tiny_bert_classifier's classes\n"
            ARGS token-attribution --model ${fixtures}/tiny_bert_classifier --text "w2 w3" --target nine)
aw_cli_test(error_token_attribution_method EXIT 1 STDERR_LINES 1
            REGEX "--methods 'saliency' is not a method \\(attention, rollout, flow, gradient\\)\n"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2 w3" --methods rollout,saliency)
aw_cli_test(error_token_attribution_flow_limit EXIT 1 STDERR_LINES 1
            REGEX "--methods flow on 5 tokens: attention flow solves one max-flow problem per token over L·n² edges and stops at --flow-limit 4 tokens; leave flow out, shorten the text or raise the limit\n"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5 w6" --flow-limit 4)
aw_cli_test(error_token_attribution_one_token EXIT 1 STDERR_LINES 1
            REGEX "--text has no token besides the explained one to attribute to \\(1 tokens\\)\n"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2")
aw_cli_test(error_token_attribution_classifier_position EXIT 1 STDERR_LINES 1
            REGEX "--position applies to a language model; tiny_bert_classifier is a classifier: its output reads the pooled text\n"
            ARGS token-attribution --model ${fixtures}/tiny_bert_classifier --text "w2 w3" --position 1)
aw_cli_test(error_token_attribution_translation_position EXIT 1 STDERR_LINES 1
            REGEX "--position '9' is not a position of the decoder's 5 tokens \\(its start, then the translation's\\) \\(0 to 4\\)\n"
            ARGS token-attribution --model ${marian_tiny} --text "I am here." --translation "Ich" --position 9)
aw_cli_test(error_token_attribution_translation_on_lm EXIT 1 STDERR_LINES 1
            REGEX "--translation applies to a translation model; tiny_lm reads one text\n"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2 w3" --translation "w4")
aw_cli_test(error_token_attribution_position EXIT 1 STDERR_LINES 1
            REGEX "--position '7' is not a position of the text's 3 tokens \\(0 to 2\\)\n"
            ARGS token-attribution --model ${fixtures}/tiny_lm --text "w2 w3 w4" --position 7)

# path-patch.
# A translation model's pairs: the sources differ in one word, the decoder has read "Le".
file(WRITE ${circuit_files}/translation_pairs.tsv "The cat sat on the mat.\tThe dog sat on the mat.\tLe\tchat\tchien\n")
file(WRITE ${circuit_files}/translation_four.tsv "The cat sat on the mat.\tThe dog sat on the mat.\tchat\tchien\n")
set(mt_vanilla ${PROJECT_SOURCE_DIR}/sample_data/mt_vanilla)
aw_cli_test(path_patch_translation EXIT 0
            REGEX "^# model=mt_vanilla, metric=logit\\(answer\\) - logit\\(foil\\) for the token after the translation, clean_mean=[0-9.e-]+, corrupted_mean=[0-9.e-]+,[^\n]*\nsender,receiver,input,effect\nenc1\\.1,cross1\\.1,k,[0-9.e-]+\n(.*\n)*cross1\\.2,dec2\\.1,q,[0-9.e-]+\n(.*\n)*dec2\\.4,cross2\\.4,q,[0-9.e-]+\n"
            ARGS path-patch --model ${mt_vanilla} --pairs ${circuit_files}/translation_pairs.tsv --receivers cross1,dec2,cross2
                 --senders enc1.1,cross1.2,dec2.4)
aw_cli_test(error_path_patch_post_norm_translation EXIT 1 STDERR_LINES 1
            REGEX "path patching needs pre-norm blocks; marian normalises after the add"
            ARGS path-patch --model ${marian_tiny} --pairs ${circuit_files}/translation_pairs.tsv)
aw_cli_test(error_path_patch_translation_fields EXIT 1 STDERR_LINES 1
            REGEX "translation_four.tsv:1: expected clean source<TAB>corrupted source<TAB>translation<TAB>answer<TAB>foil, got 4 fields\n"
            ARGS path-patch --model ${mt_vanilla} --pairs ${circuit_files}/translation_four.tsv)
aw_cli_test(error_path_patch_translation_receiver EXIT 1 STDERR_LINES 1
            REGEX "--receivers 'dec1' has no earlier heads writing the stream it reads\n"
            ARGS path-patch --model ${mt_vanilla} --pairs ${circuit_files}/translation_pairs.tsv --receivers dec1)
aw_cli_test(error_path_patch_translation_sender EXIT 1 STDERR_LINES 1
            REGEX "--senders '1.2' is not a head \\(kind, layer.head from 1: \"enc2.3\", \"dec1.2\", \"cross1.4\"\\)\n"
            ARGS path-patch --model ${mt_vanilla} --pairs ${circuit_files}/translation_pairs.tsv --senders 1.2)
file(WRITE ${circuit_files}/pairs.tsv "w2 w3 w4 w5\tw2 w3 w9 w5\tw4\tw9\nw8 w3 w4\tw8 w10 w4\tw3\tw10\n")
aw_cli_test(path_patch EXIT 0 STDOUT_LINES 8
            REGEX "^# model=tiny_lm, metric=logit\\(answer\\) - logit\\(foil\\) at the last position, clean_mean=[0-9.e-]+, corrupted_mean=[0-9.e-]+, significance=no intervals or p-values: 2 pairs are fewer than the 20 independent units.*pairs=2, data=pairs.tsv\nsender,receiver,input,effect\n1.1,logits,,[0-9.e-]+\n.*\n2.3,logits,,"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv)
aw_cli_test(path_patch_sets EXIT 0 STDOUT_LINES 6
            REGEX "sender,receiver,input,effect\n1.1[+]1.3,2.1[+]2.2,k,[0-9.e-]+\n1.1[+]1.3,2.3,v,[0-9.e-]+\n1.2,2.1[+]2.2,k,[0-9.e-]+\n1.2,2.3,v,[0-9.e-]+\n"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --senders 1.1+1.3,1.2,2.1
                 --receivers k:2.1+2.2,v:2.3)
aw_cli_test(path_patch_layer EXIT 0 STDOUT_LINES 35
            REGEX "sender,receiver,input,effect\n1.1,logits,,[0-9.e-]+\n1.1,2.1,q,[0-9.e-]+\n1.1,2.2,q,.*\n1.1,2.3,v,[0-9.e-]+\n1.2,logits,"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --receivers logits,2)
aw_cli_test(error_path_patch_lengths EXIT 1 STDERR_LINES 1
            REGEX "patch_pairs_lengths.tsv:2: the clean prompt is 2 tokens and the corrupted 3: patching needs prompts of one length\n"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs_lengths.tsv)
aw_cli_test(error_path_patch_receiver_layer EXIT 1 STDERR_LINES 1
            REGEX "--receivers layer 1: receivers are layers 2 to 2 \\(layer 1 has no earlier heads\\)\n"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --receivers 1)
aw_cli_test(error_path_patch_sender_set EXIT 1 STDERR_LINES 1
            REGEX "--senders '1.1[+]2.2' spreads over layers 1 and 2: a set's heads share a layer\n"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --senders 1.1+2.2)
aw_cli_test(error_path_patch_missing_head EXIT 1 STDERR_LINES 1
            REGEX "sender 1.4: layer 1 has 3 heads\n"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --senders 1.4)
aw_cli_test(error_path_patch_receiver_kind EXIT 1 STDERR_LINES 1
            REGEX "--receivers 'z:2.1' is neither logits, a layer, nor q:, k: or v: with heads \\(\"k:2.1[+]2.3\"\\)\n"
            ARGS path-patch --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --receivers z:2.1)
aw_cli_test(error_path_patch_classifier EXIT 1 STDERR_LINES 1
            REGEX "tiny_bert_classifier: path-patch needs a causal language model or a translation model; this checkpoint is a bert classifier\n"
            ARGS path-patch --model ${fixtures}/tiny_bert_classifier --pairs ${circuit_files}/pairs.tsv)

# eap: tiny_lm's graph has 75 edges (the input 21; each layer-1 head 12; mlp 1 11; each layer-2 head 2;
# mlp 2 1), listed by |score|; its circuits' faithfulness. The numbers: tests/analysis/circuits/.
aw_cli_test(eap EXIT 0 STDOUT_LINES 77
            REGEX "^# model=tiny_lm, method=EAP, metric=logit\\(answer\\) - logit\\(foil\\) at the last position, clean_mean=[0-9.e-]+, corrupted_mean=-?[0-9.e-]+, pairs=2, data=pairs.tsv, edges=75, .*\nrank,sender,receiver,score,share,circuit\n1,[^,]+,[^,]+,-?[0-9.e-]+,-?[0-9.e-]+,[0-9]*\n2,.*\n75,"
            ARGS eap --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv)
aw_cli_test(eap_circuits EXIT 0
            OUT_FILE ${circuit_files}/circuits.csv
            OUT_FILE_REGEX "^# model=tiny_lm, method=EAP-IG, 2 steps, .*select=the edges of largest \\|score\\|, faithfulness=.*\nedges,share_of_edges,faithfulness,patched_mean\n3,0.04,-?[0-9.e-]+,-?[0-9.e-]+\n75,1,1,-?[0-9.e-]+\n$"
            ARGS eap --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --steps 2 --select top --sizes 3,75
                 --circuits-out ${circuit_files}/circuits.csv)
# A translation model's graph: both streams' senders and receivers, named by kind.
aw_cli_test(eap_translation EXIT 0
            REGEX "^# model=mt_vanilla, method=EAP, metric=logit\\(answer\\) - logit\\(foil\\) for the token after the translation, [^\n]*edges=529,[^\n]*\nrank,sender,receiver,score,share,circuit\n1,(source|target|mlp (enc|dec)[12]|(enc|dec|cross)[12]\\.[1-4]),(logits|mlp (enc|dec)[12]|[qkv] (enc|dec|cross)[12]\\.[1-4]),"
            ARGS eap --model ${mt_vanilla} --pairs ${PROJECT_SOURCE_DIR}/sample_data/mt_noun_pairs.tsv --sizes 8)
aw_cli_test(error_eap_post_norm_translation EXIT 1 STDERR_LINES 1
            REGEX "edge attribution needs a norm before each sublayer; marian normalises after the add\n"
            ARGS eap --model ${marian_tiny} --pairs ${circuit_files}/translation_pairs.tsv)
aw_cli_test(error_eap_size EXIT 1 STDERR_LINES 1
            REGEX "--sizes '76' is more edges than the model's graph has \\(75\\)\n"
            ARGS eap --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --sizes 10,76)
aw_cli_test(error_eap_lengths EXIT 1 STDERR_LINES 1
            REGEX "patch_pairs_lengths.tsv:2: the clean prompt is 2 tokens and the corrupted 3: patching needs prompts of one length\n"
            ARGS eap --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs_lengths.tsv)
aw_cli_test(error_eap_classifier EXIT 1 STDERR_LINES 1
            REGEX "tiny_bert_classifier: eap needs a causal language model or a translation model; this checkpoint is a bert classifier\n"
            ARGS eap --model ${fixtures}/tiny_bert_classifier --pairs ${circuit_files}/pairs.tsv)
aw_cli_test(error_eap_query_norm EXIT 1 STDERR_LINES 1
            REGEX "edge attribution needs heads that read the residual stream apart; olmo2's query and key norms span every head at once\n"
            ARGS eap --model ${PROJECT_SOURCE_DIR}/tests/fixtures/hf_models/olmo2 --pairs ${circuit_files}/pairs.tsv)
aw_cli_test(error_eap_select EXIT 1 STDERR_LINES 1 REGEX "--select must be greedy or top, got 'best'\n"
            ARGS eap --model ${fixtures}/tiny_lm --pairs ${circuit_files}/pairs.tsv --select best)
