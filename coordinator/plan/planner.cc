#include "coordinator/plan/planner.h"

#include "common/hashing.h"

namespace noveltygrid {

Plan PlanSweep(const SweepConfig& config) {
  Plan plan;
  for (const ModelSpec& m : config.models) plan.models.push_back(m.name);
  StableHasher fingerprint;
  if (config.aidanbench.has_value()) {
    const AidanBenchConfig& aidan = *config.aidanbench;
    plan.aidan = MakeAidanSettings(config);
    plan.aidan_temperatures = aidan.temperatures;
    const uint64_t settings_hash = AidanSettingsHash(plan.aidan);
    fingerprint.Add(settings_hash);
    for (const std::string& model : plan.models) {
      for (double temperature : aidan.temperatures) {
        for (const Question& q : aidan.questions) {
          UnitSpec unit;
          unit.index = static_cast<int>(plan.units.size());
          unit.benchmark = kAidanBench;
          unit.model = model;
          unit.temperature = temperature;
          unit.item_id = q.id;
          unit.item_text = q.text;
          unit.id = HexId(StableHasher()
                              .Add(unit.benchmark)
                              .Add(model)
                              .Add(temperature)
                              .Add(q.id)
                              .Add(q.text)
                              .Add(settings_hash)
                              .Finish());
          fingerprint.Add(unit.id);
          plan.units.push_back(std::move(unit));
        }
      }
    }
  }
  plan.fingerprint = HexId(fingerprint.Finish());
  return plan;
}

}  // namespace noveltygrid
