# Included by CMake at the end of llama.cpp's project() call when scripts/install.sh builds
# llama-cpp-python (CMAKE_PROJECT_llama.cpp_INCLUDE, CMake's documented hook for this): the
# Python package loads libllama and libggml only, so llama.cpp's common library (and the
# cpp-httplib it alone uses) are not built. llama-cpp-python forces LLAMA_BUILD_COMMON on
# before it adds llama.cpp; this runs after that and before llama.cpp reads the option.
# The libraries the package loads are built from the same sources with the same flags.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp common library: not loaded by llama-cpp-python" FORCE)
# libllama (model loading, tokenizer, graph building, sampler chain: no numeric kernel, those are
# ggml's and keep the release flags) is compiled at -O1 instead of -O3, at the end of llama.cpp's
# top directory (when its src/ has made the target): the same logits and samples, less compile time
# (bench/main_job.py).
cmake_language(DEFER CALL target_compile_options llama PRIVATE -O1)
