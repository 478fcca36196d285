# tests/app/cli/cli_moe_tests.cmake — the mixtures of experts (mixtral, qwen3_moe, olmoe, gpt_oss; tests/fixtures/
# hf_models, written by scripts/fixtures/make_hf_moe_fixtures.py with Hugging Face's own classes) from the
# command line: what `info` says of each, attend --experts, the router as a hook point, the analyses
# running on them, and the one-line refusals (their numbers: tests/models/nn/test_mixture_of_experts.cpp).
set(hf_models ${PROJECT_SOURCE_DIR}/tests/fixtures/hf_models)
set(moe_files ${CMAKE_CURRENT_BINARY_DIR}/moe_fixtures)
file(WRITE ${moe_files}/corpus.txt "The cat sat on the mat. The dog sat on the log. A cat and a dog sat on the mat.\n")
aw_cli_test(info_mixtral EXIT 0
            REGEX "architecture mixtral\n.*also +4 experts of width 24 on 2 of 2 layers, top-2 renormalised\n"
            ARGS info --model ${hf_models}/mixtral)
aw_cli_test(info_qwen3_moe EXIT 0 REGEX "also +query/key norms per head, 6 experts of width 16 on 1 of 2 layers, top-2\n"
            ARGS info --model ${hf_models}/qwen3_moe)
aw_cli_test(info_gpt_oss_mxfp4 EXIT 0
            REGEX "sliding window 5 on 1 of 2 layers\nalso +a learned attention sink per head, 4 experts of width 32 on 2 of 2 layers, top-2 \\(softmax over the chosen\\), MXFP4 in the file\nrotary +16 of 16 channels per head, base 10000, yarn scaling\n.*stored as F32\\+MXFP4"
            ARGS info --model ${hf_models}/gpt_oss_mxfp4)
aw_cli_test(attend_experts_olmoe EXIT 0 REGEX "experts of 2 sparse layers × 13 tokens written to .*experts.csv\n.*layer  2:"
            OUT_FILE ${moe_files}/experts.csv
            OUT_FILE_REGEX "^# model=olmoe, top_k=3\nlayer,position,token,expert_1,expert_2,expert_3,weight_1,weight_2,weight_3\n1,0,[^,]+,[0-4],[0-4],[0-4],0\\.[0-9]+,0\\.[0-9]+,0\\.[0-9]+\n(.*\n)*2,12,"
            ARGS attend --model ${hf_models}/olmoe --text "The cat sat on the mat" --experts ${moe_files}/experts.csv)
aw_cli_test(error_attend_experts_dense EXIT 1 STDERR_LINES 1
            REGEX "attention-cli attend: llama is a llama model without experts; expert routing needs a mixture of experts \\(mixtral, qwen3_moe, olmoe, gpt_oss\\)\n"
            ARGS attend --model ${hf_models}/llama --text "The cat" --experts ${moe_files}/none.csv)
aw_cli_test(activations_router_qwen3_moe EXIT 0 REGEX "router.safetensors: 1 tensors?, [0-9.]+ MB, [0-9]+ tokens\n"
            OUT_FILE ${moe_files}/router.safetensors OUT_FILE_REGEX "\"blocks\\.1\\.router\":.\"dtype\":\"F32\",\"shape\":.[0-9]+,6."
            ARGS activations --model ${hf_models}/qwen3_moe --text "The cat sat" --hooks router --out ${moe_files}/router.safetensors)
aw_cli_test(stats_gpt_oss EXIT 0 REGEX "model,layer,CA,[^\n]*\ngpt_oss,1,[0-9.e-]+(,[0-9.e-]+)+\ngpt_oss,2,"
            ARGS stats --model ${hf_models}/gpt_oss --text ${moe_files}/corpus.txt --window 16)
aw_cli_test(ablate_mixtral EXIT 0 REGEX "# model=mixtral, metric=perplexity, [^\n]*\nlayer,head,metric,delta\n1,1,[0-9.]+,[-0-9.e]+\n.*2,4,"
            ARGS ablate --model ${hf_models}/mixtral --text ${moe_files}/corpus.txt --window 16 --bootstrap 0)
aw_cli_test(head_types_gpt_oss EXIT 0 REGEX "layer,head,previous_token,duplicate_token,induction,sink,entropy,self,learned_sink\n1,1,"
            ARGS head-types --model ${hf_models}/gpt_oss --sequences 2 --length 8)
aw_cli_test(logit_lens_olmoe EXIT 0 REGEX "layer,position,token,scored,rank,probability,kl,top1,p1"
            ARGS logit-lens --model ${hf_models}/olmoe --text "The cat sat on the mat" --k 1)
aw_cli_test(prune_apply_mixtral EXIT 0 REGEX "pruned 2 of 8 heads \\(importance order\\): [0-9]+ → [0-9]+ parameters.*saved to"
            ARGS prune --model ${hf_models}/mixtral --text ${moe_files}/corpus.txt --window 16 --apply 25 --save ${moe_files}/pruned_mixtral)
