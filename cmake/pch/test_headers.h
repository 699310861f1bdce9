// The test targets' precompiled header (cmake/pch.cmake): the common one plus GoogleTest.
#pragma once

#include "common_headers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
