"""The audit chain's domain: campaign inputs to agreement, the repair plan, the adjudication
queue check, overrides, finalize, the grade scale, the rater choice and challenge qrels.
Services call it; it calls formats, policies, scorers and campaign below it."""
