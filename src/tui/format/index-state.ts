import type { IndexView } from "../../app/background-indexing.js";
import type { DoctorIndexState } from "../../app/doctor.js";
import type { FullTextIndexDamage } from "../../store/snapshot-damage.js";
import { indexSegment } from "./status-text.js";

/**
 * The index as a session sees it, for `/doctor` and `/status`: the
 * background indexing's own state (with its progress while it works), and
 * damage this process met in a full-text snapshot.
 */
export function sessionIndexState(view: IndexView, damage: readonly FullTextIndexDamage[]): DoctorIndexState {
  switch (view.state) {
    case "pending":
    case "off":
      return { state: "off" };
    case "fresh":
      return damage.length > 0 ? { state: "damaged", damaged: [...damage] } : { state: "fresh" };
    case "failed":
      return { state: "failed", message: view.message };
    default:
      return { state: "busy", doing: indexSegment(view).full.replace(/^index: /, "") };
  }
}
