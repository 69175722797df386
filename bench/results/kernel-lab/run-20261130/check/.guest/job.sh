#!/bin/bash
# Written by run-in-guest; runs inside the guest after chroot.
export AWS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE=/etc/ssl/certs/ca-certificates.crt
export CLOUD_SDK_VERSION=528.0.0
export CONTAINER_NAME=hidden-style-fcbqwn-bfbcsw
export CUDA_HOME=/usr/local/cuda
export CURL_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
export DEBIAN_FRONTEND=noninteractive
export GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt
export GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=/etc/ssl/certs/ca-certificates.crt
export HOME=/root
export HTTPLIB2_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
export IS_SANDBOX=yes
export LANG=C.UTF-8
export LIBRARY_PATH=/usr/local/cuda/lib64/stubs
export NIX_SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
export NVPL_BLAS_DEBUG_CPU_TYPE=1
export OPENBLAS_CORETYPE=Haswell
export OPENBLAS_L2_SIZE=512
export PATH=/root/.cargo/bin:/root/.cargo/bin:/root/.pyenv/plugins/pyenv-virtualenv/shims:/root/.pyenv/shims:/root/.pyenv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PIP_CERT=/etc/ssl/certs/ca-certificates.crt
export PIP_DEFAULT_TIMEOUT=180
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_FIND_LINKS=/opt/wheels
export PYENV_ROOT=/root/.pyenv
export PYTHONDONTWRITEBYTECODE=1
export PYTHONUNBUFFERED=1
export REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
export RUSTUP_AUTO_INSTALL=0
export RUST_BACKTRACE=1
export SHELL=/bin/bash
export SSL_CERT_DIR=/etc/ssl/certs
export SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
export TERM=xterm
export TF_CLI_CONFIG_FILE=/root/.terraformrc
export TOX_OVERRIDE=testenv.passenv+=#\,OPENBLAS_\*\;env_run_base.passenv+=OPENBLAS_\*\;tool.tox.env_run_base.passenv+=OPENBLAS_\*
export TOX_TESTENV_PASSENV=OPENBLAS_\*
export KERNEL_LAB_GUEST=1 KERNEL_LAB_OUT=/work/main/bench/results/kernel-lab/run-20261130/check
cd /work/main 2>/dev/null || { echo "run-in-guest: warning: cannot cd to /work/main in the guest, using /" >&2; cd /; }
exec /work/main/bench/kernel-lab/pg-in-guest --out /work/main/bench/results/kernel-lab/run-20261130/check --phases facts\,check --rounds 6
