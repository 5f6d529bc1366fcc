"""Static assets shared by the app and the offline packet (the JavaScript normalizer)."""
