"""Admin views (behind the admin password): read packets, admin keys and every journal."""
