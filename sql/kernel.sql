--
-- pg_rseq_kernel() and pg_rseq_backend_state() on the patched server.
-- Values differ between machines (kernel, glibc): only their consistency
-- is shown.
--
SELECT lock_layer,
       mode IN ('off', 'measure', 'upstream', 'poc') AS mode_known,
       mode <> 'off' AS mode_counts,
       mode_setting = current_setting('rseq_slice_mode') AS setting_matches_guc,
       mode_reason <> '' AS has_mode_reason,
       kernel_release <> '' AS has_release,
       rseq_owner IN ('glibc', 'postgres', 'none') AS owner_known,
       rseq_registered = (rseq_registration IS NOT NULL) AS registration_consistent,
       rseq_registered = (rseq_length IS NOT NULL) AS length_consistent,
       slice_extension IN ('enabled', 'available', 'unavailable', 'disabled') AS slice_known,
       (slice_extension = 'enabled') = (mode = 'upstream') OR mode_setting NOT IN ('auto', 'upstream') AS upstream_iff_enabled,
       slice_ext_nsec IS NULL OR slice_ext_nsec > 0 AS nsec_valid,
       summary LIKE 'kernel %' AS has_summary,
       detail = current_setting('rseq_slice_detail')::boolean AS detail_matches_guc
FROM pg_rseq_kernel();

-- the result columns (1.1.0: detail after mode_reason, marker; 1.2.0:
-- rseq_cs_kind last)
SELECT pg_get_function_arguments('pg_rseq_kernel'::regproc) AS kernel_columns;
SELECT pg_get_function_arguments('pg_rseq_backend_state'::regproc) AS backend_state_columns;

-- the mode in force agrees everywhere
SELECT k.mode = s.mode AS same_mode_in_state,
       k.mode = r.mode AS same_mode_in_view
FROM pg_rseq_kernel() k, pg_rseq_backend_state() s, pg_stat_rseq r
WHERE r.pid = pg_backend_pid();

-- outside any lock: depth 0, no request pending, rseq_cs 0 or the lock
-- layer's marker (left armed between sections)
SELECT depth,
       coalesce(request, 0) AS request,
       coalesce(granted, 0) AS granted,
       coalesce(rseq_cs IN (0, marker), true) AS rseq_cs_0_or_marker,
       coalesce(rseq_cs_kind IN ('none', 'marker'), true) AS rseq_cs_kind_none_or_marker
FROM pg_rseq_backend_state();
-- rseq_cs_kind names what rseq_cs holds (a superuser sees both)
SELECT rseq_cs_kind IS NOT DISTINCT FROM
           CASE WHEN rseq_cs = 0 THEN 'none' WHEN rseq_cs = marker THEN 'marker'
                WHEN rseq_cs IS NOT NULL THEN 'other' END AS rseq_cs_kind_matches
FROM pg_rseq_backend_state();
-- the marker is known whenever an rseq area is registered
SELECT coalesce(s.marker > 0, false) = k.rseq_registered AS marker_iff_registered,
       (s.rseq_cs IS NULL) = (s.marker IS NULL) AS marker_null_iff_no_area
FROM pg_rseq_backend_state() s, pg_rseq_kernel() k;

-- descheduled_counts (1.3.0) follows the kernel release: up to 6.18 every
-- context switch, from 6.19 on interrupt and exception entries from user
-- mode; nothing without an rseq area
SELECT CASE WHEN NOT rseq_registered THEN descheduled_counts LIKE 'nothing:%'
            WHEN split_part(kernel_release, '.', 1)::int * 1000
                 + substring(split_part(kernel_release, '.', 2) FROM '^[0-9]+')::int <= 6018
            THEN descheduled_counts LIKE 'every context switch of the holder:%'
            ELSE descheduled_counts LIKE 'entries from user mode by an interrupt or exception only:%'
       END AS descheduled_counts_follows_release
FROM pg_rseq_kernel();
