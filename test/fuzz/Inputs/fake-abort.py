#!/usr/bin/env python3
# A torch-tidy that aborts (SIGABRT), as a failed assertion does.
import os

os.abort()
