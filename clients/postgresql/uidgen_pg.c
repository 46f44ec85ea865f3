// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uidgen for PostgreSQL: the SQL functions of the extension (uidgen--1.1.sql)
 * over libuidgen. Owns the per-backend handle on /dev/uid (opened on first
 * use, with the layout read from UIDGEN_IOC_INFO once: the module cannot be
 * unloaded, so the layout cannot change, while the handle is open) and the
 * mapping of libuidgen's errnos to PostgreSQL errors with hints; and the
 * public form's key set (uidgen_public(), uidgen_private()), read from the
 * file the server's own setting uidgen.public_key_file names, never from a
 * query, and read again when the file changes.
 *
 * Every failure is an ereport(ERROR): the statement fails, the backend
 * lives on, and the next call tries to open the device again.
 */
#include "postgres.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "access/htup_details.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "access/xact.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "uidgen.h"

PG_MODULE_MAGIC;

/* Unix time of PostgreSQL's timestamp 0 (2000-01-01), in microseconds. */
#define UIDGEN_PG_EPOCH_US \
	((int64)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

static struct uidgen *uidgen_handle;
static struct uidgen_info uidgen_layout;

/* What each errno from /dev/uid means to someone at a psql prompt. */
static void uidgen_pg_error(int err, const char *what) pg_attribute_noreturn();

static void uidgen_pg_error(int err, const char *what)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("uidgen: %s: %s: the uidgen kernel module is not loaded",
				what, strerror(err)),
			 errhint("Load it: \"modprobe uidgen\" as root, then give it this machine's node ID N: \"uidgen set-node N --new\" if N never issued an ID, else \"uidgen state restore FILE\" (see the admin guide).")));
		break;
	case EACCES:
	case EPERM:
		ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("uidgen: %s: %s", what, strerror(err)),
			 errhint("/dev/uid is restricted to a group (a udev rule, 60-uidgen.rules, sets its mode and group): add the database server's user to that group and restart the server.")));
		break;
	case EADDRNOTAVAIL:
		ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("uidgen: %s: no node ID is assigned, so no ID can be issued", what),
			 errhint("As root: \"uidgen set-node N --new\" for a node ID N (unique to this machine) that never issued an ID, or restore its floor first (\"uidgen state restore\"; see the admin guide).")));
		break;
	case EDOM:
		ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("uidgen: %s: the ID is further ahead of this machine's clock than the module's observe_ahead_ms, so it was refused and nothing changed", what),
			 errhint("Check the time synchronisation of this machine and of the one that minted the ID.")));
		break;
	case EOVERFLOW:
		ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("uidgen: %s: the ID timestamp field is exhausted for this layout and epoch", what),
			 errhint("A layout with a later epoch_ms or a wider ts_bits is a new key space: its IDs start again near 0 and would collide with the keys issued so far. Use it only for new keys (a new column or table), never by reloading the module under existing keys.")));
		break;
	default:
		ereport(ERROR,
			(errcode(ERRCODE_SYSTEM_ERROR),
			 errmsg("uidgen: %s: %s", what, strerror(err))));
	}
	pg_unreachable();
}

/* The backend's handle, opened on first use. */
static struct uidgen *uidgen_pg_handle(void)
{
	struct uidgen *g;
	int ret;

	if (uidgen_handle)
		return uidgen_handle;
	/*
	 * Non-blocking: the kernel never sleeps for a tick or for the grant
	 * (such a sleep is restarted after PostgreSQL's SA_RESTART handlers,
	 * so statement_timeout and cancel would never be seen); we wait on
	 * our latch instead. See uidgen_pg_next().
	 */
	ret = uidgen_open_flags(&g, NULL, O_NONBLOCK);
	if (ret)
		uidgen_pg_error(-ret, "open " UIDGEN_DEVICE);
	uidgen_layout.size = sizeof(uidgen_layout);
	ret = uidgen_info(g, &uidgen_layout);
	if (ret < 0) {
		uidgen_close(g);
		uidgen_pg_error(-ret, "UIDGEN_IOC_INFO");
	}
	uidgen_handle = g;
	return g;
}

static const struct uidgen_info *uidgen_pg_layout(void)
{
	uidgen_pg_handle();
	return &uidgen_layout;
}

static int64 uidgen_pg_next(struct uidgen *g)
{
	uint64_t id;
	int ret;

	/*
	 * -EAGAIN: this tick's IDs are spent (or the grant is reached); wait
	 * a millisecond on the latch, which a signal sets, and see to cancel,
	 * statement_timeout and termination before trying again.
	 */
	while ((ret = uidgen_next(g, &id)) == -EAGAIN || ret == -EINTR) {
		(void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
				1, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	if (ret)
		uidgen_pg_error(-ret, "uidgen_next");
	return (int64)id;
}

static uint64_t uidgen_pg_id(int64 v)
{
	if (v < 0)
		ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("uidgen: %lld is not an ID: IDs are never negative",
				(long long)v)));
	return (uint64_t)v;
}

/* The tick start of @id in Unix microseconds (exact). */
static int64 uidgen_pg_start_us(const struct uidgen_info *l, uint64_t id,
				struct uidgen_parts *p)
{
	uint64_t us;

	if (uidgen_decode(l, id, p) ||
	    __builtin_mul_overflow(p->tick, l->tick_ns / 1000, &us) ||
	    __builtin_add_overflow(us, l->epoch_unix_ns / 1000, &us) ||
	    us >= (uint64_t)END_TIMESTAMP + (uint64_t)UIDGEN_PG_EPOCH_US)
		ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("uidgen: the time of ID %llu is out of range for timestamptz",
				(unsigned long long)id)));
	return (int64)us;
}

PG_FUNCTION_INFO_V1(uidgen_next_sql);
Datum uidgen_next_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(uidgen_pg_next(uidgen_pg_handle()));
}

PG_FUNCTION_INFO_V1(uidgen_next_n_sql);
Datum uidgen_next_n_sql(PG_FUNCTION_ARGS)
{
	FuncCallContext *fc;

	if (SRF_IS_FIRSTCALL()) {
		int32 n = PG_GETARG_INT32(0);

		if (n < 0)
			ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("uidgen: uidgen_next(%d): the count must not be negative", n)));
		uidgen_pg_handle();
		fc = SRF_FIRSTCALL_INIT();
		fc->max_calls = n;
	}
	fc = SRF_PERCALL_SETUP();
	if (fc->call_cntr < fc->max_calls)
		SRF_RETURN_NEXT(fc, Int64GetDatum(uidgen_pg_next(uidgen_pg_handle())));
	SRF_RETURN_DONE(fc);
}

/*
 * uidgen_observe(id): every ID this machine mints from now on is greater
 * than @id (UIDGEN_IOC_OBSERVE), so a row keyed after it sorts after the
 * row it references.
 */
PG_FUNCTION_INFO_V1(uidgen_observe_sql);
Datum uidgen_observe_sql(PG_FUNCTION_ARGS)
{
	uint64_t id = uidgen_pg_id(PG_GETARG_INT64(0));
	int ret = uidgen_observe(uidgen_pg_handle(), id);

	if (ret)
		uidgen_pg_error(-ret, "uidgen_observe");
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(uidgen_decode_sql);
Datum uidgen_decode_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_info *l = uidgen_pg_layout();
	uint64_t id = uidgen_pg_id(PG_GETARG_INT64(0));
	bool nulls[4] = { false, false, false, false };
	struct uidgen_parts p;
	Datum values[4];
	TupleDesc td;
	int64 us;

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("uidgen: uidgen_decode() called where no record is expected")));
	td = BlessTupleDesc(td);
	us = uidgen_pg_start_us(l, id, &p);
	values[0] = TimestampTzGetDatum(us - UIDGEN_PG_EPOCH_US);
	values[1] = Int32GetDatum((int32)p.node);
	values[2] = Int32GetDatum((int32)p.slot);
	values[3] = Int32GetDatum((int32)p.seq);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, values, nulls)));
}

PG_FUNCTION_INFO_V1(uidgen_time_sql);
Datum uidgen_time_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_info *l = uidgen_pg_layout();
	struct uidgen_parts p;

	PG_RETURN_TIMESTAMPTZ(uidgen_pg_start_us(l, uidgen_pg_id(PG_GETARG_INT64(0)), &p) -
			      UIDGEN_PG_EPOCH_US);
}

/* The smallest ID whose tick starts at or after @t (0 before the epoch). */
PG_FUNCTION_INFO_V1(uidgen_min_id_sql);
Datum uidgen_min_id_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_info *l = uidgen_pg_layout();
	TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
	unsigned int low = UIDGEN_ID_BITS - l->ts_bits;
	int64 epoch_us = (int64)(l->epoch_unix_ns / 1000), us;
	uint64_t tick_us = l->tick_ns / 1000;
	uint64_t tick;

	if (TIMESTAMP_NOT_FINITE(t))
		ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("uidgen: uidgen_min_id() needs a finite time")));
	us = t + UIDGEN_PG_EPOCH_US;
	if (us <= epoch_us)
		PG_RETURN_INT64(0);
	tick = ((uint64_t)(us - epoch_us) + tick_us - 1) / tick_us;
	if (tick >> l->ts_bits)
		ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("uidgen: %s is past the last tick of the layout in force",
				timestamptz_to_str(t))));
	PG_RETURN_INT64((int64)(tick << low));
}

PG_FUNCTION_INFO_V1(uidgen_to_uuid_sql);
Datum uidgen_to_uuid_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_info *l = uidgen_pg_layout();
	uint64_t id = uidgen_pg_id(PG_GETARG_INT64(0));
	pg_uuid_t *u = palloc(sizeof(*u));
	int ret;

	ret = uidgen_to_uuid(l, id, 0, u->data);
	if (ret)
		ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("uidgen: ID %llu has no UUID: %s",
				(unsigned long long)id, strerror(-ret)),
			 errdetail("Its tick starts past 2^48 ms (year 10889), beyond a UUIDv7's time field.")));
	PG_RETURN_UUID_P(u);
}

PG_FUNCTION_INFO_V1(uidgen_from_uuid_sql);
Datum uidgen_from_uuid_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_info *l = uidgen_pg_layout();
	pg_uuid_t *u = PG_GETARG_UUID_P(0);
	char text[UIDGEN_UUID_STR_MAX];
	uint64_t id;
	int ret;

	ret = uidgen_from_uuid(l, u->data, &id);
	if (ret) {
		uidgen_format_uuid(u->data, UIDGEN_UUID_TEXT, text, sizeof(text));
		ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("uidgen: %s is not the UUID of an ID in the layout in force", text),
			 errdetail(ret == -ERANGE ?
				   "Its time is before the layout's epoch or after its last tick." :
				   "Only UUIDs from uidgen_to_uuid() map back: version 7 or 8, the time at a tick start, the bits below the ID's zero.")));
	}
	PG_RETURN_INT64((int64)id);
}

/*
 * The public form (Documentation/public-ids.rst). The key file is named by
 * uidgen.public_key_file, a PGC_SIGHUP setting: postgresql.conf or ALTER
 * SYSTEM, never a session or a query. It is read on first use, and again
 * at the first call of a statement that finds the file replaced or changed
 * (a rotation: the new key, added to the file, makes the tokens from then
 * on; the old keys still open theirs).
 */
static char *uidgen_key_file;
static struct uidgen_keys *uidgen_keys;
static struct stat uidgen_keys_st;
static char *uidgen_keys_path;
static TimestampTz uidgen_keys_checked;

void _PG_init(void);

void _PG_init(void)
{
	DefineCustomStringVariable("uidgen.public_key_file",
				   "The key file of uidgen_public() and uidgen_private().",
				   "One key a line, as \"uidgen keygen\" writes it (man 3 uidgen_public); "
				   "readable by the server's user, not by others.",
				   &uidgen_key_file, NULL, PGC_SIGHUP, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("uidgen");
}

static bool uidgen_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static const struct uidgen_keys *uidgen_pg_keys(void)
{
	TimestampTz now = GetCurrentStatementStartTimestamp();
	struct uidgen_keys *k;
	unsigned int line;
	struct stat st;
	int ret;

	if (!uidgen_key_file || !*uidgen_key_file)
		ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("uidgen: no key file: uidgen.public_key_file is not set"),
			 errhint("As root: \"uidgen keygen FILE\" makes one; give it to the server's user (chown postgres FILE; chmod 0600 FILE), set uidgen.public_key_file = 'FILE' in postgresql.conf and reload.")));
	if (uidgen_keys && uidgen_keys_checked == now &&
	    !strcmp(uidgen_keys_path, uidgen_key_file))
		return uidgen_keys;
	if (uidgen_keys && !strcmp(uidgen_keys_path, uidgen_key_file) &&
	    !stat(uidgen_key_file, &st) && uidgen_same_file(&st, &uidgen_keys_st)) {
		uidgen_keys_checked = now;
		return uidgen_keys;
	}
	if (stat(uidgen_key_file, &st))
		memset(&st, 0, sizeof(st));
	ret = uidgen_keys_load(&k, uidgen_key_file, &line);
	if (ret == -EPERM && (st.st_mode & (S_IRWXO | S_IWGRP)))
		ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("uidgen: key file \"%s\": others may read it or its group may write it (mode %04o)",
				uidgen_key_file, (unsigned int)(st.st_mode & 07777)),
			 errhint("Make it readable by the server only: chmod 0600 FILE, owned by the server's user (or root:postgres 0640).")));
	if (ret == -EPERM)
		ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("uidgen: key file \"%s\": owned by user %u, neither root nor the server's user",
				uidgen_key_file, (unsigned int)st.st_uid),
			 errhint("chown it to the server's user (or to root, group postgres, mode 0640).")));
	if (ret && line)
		ereport(ERROR,
			(errcode(ERRCODE_CONFIG_FILE_ERROR),
			 errmsg("uidgen: key file \"%s\" line %u: %s", uidgen_key_file, line,
				ret == -EEXIST ? "a key ID given twice" : "not a key ID, blanks and 32 hex digits")));
	if (ret)
		ereport(ERROR,
			(errcode(ret == -ENOENT || ret == -EACCES ? ERRCODE_UNDEFINED_FILE : ERRCODE_CONFIG_FILE_ERROR),
			 errmsg("uidgen: key file \"%s\": %s", uidgen_key_file,
				ret == -ENOKEY ? "no key in it" : strerror(-ret)),
			 errhint("uidgen.public_key_file names the key file (postgresql.conf); the server's user must be able to read it.")));
	uidgen_keys_free(uidgen_keys);
	if (uidgen_keys_path)
		pfree(uidgen_keys_path);
	uidgen_keys = k;
	uidgen_keys_path = MemoryContextStrdup(TopMemoryContext, uidgen_key_file);
	uidgen_keys_st = st;
	uidgen_keys_checked = now;
	return k;
}

PG_FUNCTION_INFO_V1(uidgen_public_sql);
Datum uidgen_public_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_keys *k = uidgen_pg_keys();
	uint64_t id = uidgen_pg_id(PG_GETARG_INT64(0));
	char buf[UIDGEN_PUBLIC_STR_MAX];
	int ret;

	ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, id, UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
	if (ret < 0)
		uidgen_pg_error(-ret, "uidgen_public");
	PG_RETURN_TEXT_P(cstring_to_text(buf));
}

PG_FUNCTION_INFO_V1(uidgen_private_sql);
Datum uidgen_private_sql(PG_FUNCTION_ARGS)
{
	const struct uidgen_keys *k = uidgen_pg_keys();
	char *s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	uint64_t id;
	int ret;

	ret = uidgen_parse_public(k, s, UIDGEN_PUBLIC_TEXT, UIDGEN_KEY_CURRENT, &id);
	if (ret == -EINVAL)
		ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("uidgen: \"%s\" is not a public ID: 13 characters of 0-9A-Za-z", s)));
	if (ret == -ENOKEY)
		ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("uidgen: \"%s\" was made under key %c, which the key file does not hold", s, s[0]),
			 errhint("A token of a key removed from the file, or of another site's keys.")));
	if (ret == -EKEYREJECTED)
		ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("uidgen: \"%s\" is not a public ID of this key file's key %c", s, s[0]),
			 errdetail("Its check digit does not match, or it opens to no ID: mistyped, or made under another key with the same key ID.")));
	if (ret)
		uidgen_pg_error(-ret, "uidgen_private");
	PG_RETURN_INT64((int64)id);
}
