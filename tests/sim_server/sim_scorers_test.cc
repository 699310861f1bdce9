#include "gtest/gtest.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid {
namespace {

TEST(SimSameIdeaProbability, IdenticalTextsAreSameIdeaAndUnrelatedAreNot) {
  const char* a = "Use the brick as a doorstop to keep the kitchen door open.";
  const char* b = "Grind the brick into red pigment for painting pottery.";
  EXPECT_GT(SimSameIdeaProbability(a, a), 0.99);
  EXPECT_LT(SimSameIdeaProbability(a, b), 0.102);  // below the reference decision threshold
  EXPECT_DOUBLE_EQ(SimSameIdeaProbability(a, b), SimSameIdeaProbability(b, a));
}

TEST(SimSameIdeaProbability, NearCopyScoresAboveThreshold) {
  EXPECT_GT(SimSameIdeaProbability("Use the brick as a doorstop to keep the kitchen door open.",
                                   "Use a brick as a doorstop to keep a door open."),
            0.102);
}

TEST(SimSameIdeaProbability, EmptyTexts) {
  EXPECT_GT(SimSameIdeaProbability("", ""), 0.99);
  EXPECT_LT(SimSameIdeaProbability("", "a doorstop made of brick"), 0.01);
}

TEST(SimReward, CoherentBeatsWordSaladAndStaysOnScale) {
  const char* prompt = "Name one unusual use for a brick.";
  const double coherent = SimReward(prompt, "You can use a brick as a heavy doorstop to keep a door from closing.");
  const double salad = SimReward(prompt, "gravel quickly purple the of of sings banana whence zx");
  EXPECT_GT(coherent, salad);
  for (double r : {coherent, salad}) {
    EXPECT_GE(r, -10.0);
    EXPECT_LE(r, 2.0);
  }
  EXPECT_EQ(SimReward(prompt, "same text"), SimReward(prompt, "same text"));
}

}  // namespace
}  // namespace noveltygrid
