// LeasePolicy: a rule the scheduler asks before it leases a pending unit (coordinator/lease/
// unit_scheduler.h), e.g. the budget (budget_policy.h). The scheduler calls it under its own lock, so
// an implementation must not call back into the scheduler.
#ifndef NOVELTYGRID_COORDINATOR_LEASE_LEASE_POLICY_H_
#define NOVELTYGRID_COORDINATOR_LEASE_LEASE_POLICY_H_

#include "common/records.h"

namespace noveltygrid {

class LeasePolicy {
 public:
  virtual ~LeasePolicy() = default;
  // Whether `unit` may be leased now; changes nothing.
  virtual bool Allows(const UnitSpec& unit) = 0;
  // `unit` was leased (after Allows said yes): it is in flight.
  virtual void Leased(const UnitSpec& unit) = 0;
  // `unit`'s lease ended: it came back to pending (released, expired, its worker left) or was marked
  // done (its result, if any, was committed before).
  virtual void Ended(const UnitSpec& unit) = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_LEASE_LEASE_POLICY_H_
