// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uvm_bpf_ext.c - BPF struct_ops types and kfuncs of nvidia-uvm.
 *
 * Registers struct uvm_gpu_ext (prefetch), struct uvm_fault_policy_ops
 * (fault replay) and struct uvm_evict_ops (eviction order), each a single
 * instance behind an RCU pointer.  .update swaps a running policy for
 * another without a window in which the driver falls back to its default.
 *
 * The driver side provides uvm_pmm_bpf_chunk_move(); everything else here
 * only depends on the types named in uvm_bpf_ext.h.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/bpf_verifier.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "uvm_bpf_ext.h"

/*
 * Puts enum uvm_bpf_ext_abi, the ABI version, in the module's BTF: BTF is
 * made from the debug info, which holds an enum only where something uses it.
 */
const enum uvm_bpf_ext_abi uvm_bpf_ext_abi_version = UVM_BPF_EXT_ABI_VERSION;

#if UVM_BPF_EXT_ENABLED

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define UVM_BPF_LINK_ARG , struct bpf_link *link
#else
#define UVM_BPF_LINK_ARG
#endif

struct uvm_gpu_ext __rcu *uvm_bpf_prefetch_ops;
struct uvm_fault_policy_ops __rcu *uvm_bpf_replay_ops;
struct uvm_evict_ops __rcu *uvm_bpf_evict_ops;

static DEFINE_MUTEX(uvm_bpf_ops_lock);

/* Hot-path callers: the sites test uvm_bpf_*_attached() first. */

int uvm_bpf_call_before_compute_prefetch(uvm_page_index_t page_index,
					 uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
					 uvm_va_block_region_t *max_prefetch_region,
					 uvm_va_block_region_t *result_region)
{
	struct uvm_gpu_ext *ops;
	int action = UVM_BPF_ACTION_DEFAULT;

	rcu_read_lock();
	ops = rcu_dereference(uvm_bpf_prefetch_ops);
	if (ops && ops->uvm_prefetch_before_compute)
		action = ops->uvm_prefetch_before_compute(page_index, bitmap_tree,
							  max_prefetch_region,
							  result_region);
	rcu_read_unlock();

	if (action != UVM_BPF_ACTION_BYPASS && action != UVM_BPF_ACTION_ENTER_LOOP)
		action = UVM_BPF_ACTION_DEFAULT;
	return action;
}

void uvm_bpf_call_on_tree_iter(uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
			       uvm_va_block_region_t *max_prefetch_region,
			       uvm_va_block_region_t *current_region,
			       unsigned int counter,
			       uvm_va_block_region_t *prefetch_region)
{
	struct uvm_gpu_ext *ops;

	rcu_read_lock();
	ops = rcu_dereference(uvm_bpf_prefetch_ops);
	if (ops && ops->uvm_prefetch_on_tree_iter)
		ops->uvm_prefetch_on_tree_iter(bitmap_tree, max_prefetch_region,
					       current_region, counter,
					       prefetch_region);
	rcu_read_unlock();
}

int uvm_bpf_call_decide_replay(struct uvm_fault_batch_info *batch,
			       int default_policy)
{
	struct uvm_fault_policy_ops *ops;
	int decision = UVM_BPF_REPLAY_DEFAULT;

	rcu_read_lock();
	ops = rcu_dereference(uvm_bpf_replay_ops);
	if (ops && ops->decide_replay)
		decision = ops->decide_replay(batch, default_policy);
	rcu_read_unlock();

	if (decision > 0)
		return UVM_BPF_REPLAY_NOW;
	if (decision < 0)
		return UVM_BPF_REPLAY_DEFER;
	return UVM_BPF_REPLAY_DEFAULT;
}

#define UVM_BPF_CALL_EVICT(member, ...)					\
({									\
	struct uvm_evict_ops *__ops;					\
	int __ret = UVM_BPF_EVICT_DEFAULT;				\
									\
	rcu_read_lock();						\
	__ops = rcu_dereference(uvm_bpf_evict_ops);			\
	if (__ops && __ops->member)					\
		__ret = __ops->member(__VA_ARGS__);			\
	rcu_read_unlock();						\
	__ret == UVM_BPF_EVICT_HANDLED ? __ret : UVM_BPF_EVICT_DEFAULT;	\
})

int uvm_bpf_call_chunk_activate(uvm_gpu_chunk_t *chunk,
				struct uvm_evict_chunk_info *info,
				struct list_head *used_list)
{
	return UVM_BPF_CALL_EVICT(chunk_activate, chunk, info, used_list);
}

int uvm_bpf_call_chunk_used(uvm_gpu_chunk_t *chunk,
			    struct uvm_evict_chunk_info *info,
			    struct list_head *used_list)
{
	return UVM_BPF_CALL_EVICT(chunk_used, chunk, info, used_list);
}

void uvm_bpf_call_chunk_release(uvm_gpu_chunk_t *chunk,
				struct uvm_evict_chunk_info *info)
{
	UVM_BPF_CALL_EVICT(chunk_release, chunk, info);
}

void uvm_bpf_call_evict_prepare(uvm_gpu_chunk_t *candidate,
				struct uvm_evict_chunk_info *info,
				struct list_head *used_list)
{
	UVM_BPF_CALL_EVICT(evict_prepare, candidate, info, used_list);
}

/* kfuncs */

__bpf_kfunc_start_defs();

/* Sets [first, outer); the driver later clamps it to max_prefetch_region. */
__bpf_kfunc void bpf_uvm_set_va_block_region(uvm_va_block_region_t *region,
					     uvm_page_index_t first,
					     uvm_page_index_t outer)
{
	if (outer > PAGES_PER_UVM_VA_BLOCK)
		outer = PAGES_PER_UVM_VA_BLOCK;
	if (first > outer)
		first = outer;
	region->first = first;
	region->outer = outer;
}

/* Index of the first substr in str (both bounded), or -1. */
__bpf_kfunc int bpf_uvm_strstr(const char *str, NvU32 str__sz,
			       const char *substr, NvU32 substr__sz)
{
	NvU32 n = strnlen(str, str__sz), m = strnlen(substr, substr__sz), i;

	if (m == 0)
		return 0;
	for (i = 0; i + m <= n; i++)
		if (!memcmp(str + i, substr, m))
			return i;
	return -1;
}

__bpf_kfunc int bpf_uvm_evict_move_head(uvm_gpu_chunk_t *chunk,
					struct list_head *used_list)
{
	return uvm_pmm_bpf_chunk_move(chunk, used_list, true);
}

__bpf_kfunc int bpf_uvm_evict_move_tail(uvm_gpu_chunk_t *chunk,
					struct list_head *used_list)
{
	return uvm_pmm_bpf_chunk_move(chunk, used_list, false);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(uvm_bpf_kfunc_ids)
BTF_ID_FLAGS(func, bpf_uvm_set_va_block_region, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_uvm_strstr)
BTF_ID_FLAGS(func, bpf_uvm_evict_move_head, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_uvm_evict_move_tail, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(uvm_bpf_kfunc_ids)

static const struct btf_kfunc_id_set uvm_bpf_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &uvm_bpf_kfunc_ids,
};

/* struct_ops plumbing shared by the three types */

static bool uvm_bpf_is_valid_access(int off, int size, enum bpf_access_type type,
				    const struct bpf_prog *prog,
				    struct bpf_insn_access_aux *info)
{
	if (type != BPF_READ || off < 0 || off % size)
		return false;
	return btf_ctx_access(off, size, type, prog, info);
}

static const struct bpf_verifier_ops uvm_bpf_verifier_ops = {
	.get_func_proto = bpf_base_func_proto,
	.is_valid_access = uvm_bpf_is_valid_access,
};

static int uvm_bpf_init(struct btf *btf)
{
	return 0;
}

static int uvm_bpf_init_member(const struct btf_type *t,
			       const struct btf_member *member,
			       void *kdata, const void *udata)
{
	return 0;
}

static int uvm_bpf_ops_reg(void __rcu **slot, void *kdata)
{
	int ret = 0;

	mutex_lock(&uvm_bpf_ops_lock);
	if (rcu_access_pointer(*slot))
		ret = -EBUSY;
	else
		rcu_assign_pointer(*slot, kdata);
	mutex_unlock(&uvm_bpf_ops_lock);
	return ret;
}

static void uvm_bpf_ops_unreg(void __rcu **slot, void *kdata)
{
	mutex_lock(&uvm_bpf_ops_lock);
	if (rcu_access_pointer(*slot) == kdata)
		RCU_INIT_POINTER(*slot, NULL);
	mutex_unlock(&uvm_bpf_ops_lock);
	synchronize_rcu();
}

/* One store: every caller sees either the old or the new policy. */
static int uvm_bpf_ops_update(void __rcu **slot, void *kdata, void *old_kdata)
{
	int ret = 0;

	mutex_lock(&uvm_bpf_ops_lock);
	if (rcu_access_pointer(*slot) != old_kdata)
		ret = -EINVAL;
	else
		rcu_assign_pointer(*slot, kdata);
	mutex_unlock(&uvm_bpf_ops_lock);
	if (!ret)
		synchronize_rcu();
	return ret;
}

#define UVM_BPF_OPS_CALLBACKS(name, slot)				\
static int name##_reg(void *kdata UVM_BPF_LINK_ARG)			\
{									\
	return uvm_bpf_ops_reg((void __rcu **)&(slot), kdata);		\
}									\
static void name##_unreg(void *kdata UVM_BPF_LINK_ARG)			\
{									\
	uvm_bpf_ops_unreg((void __rcu **)&(slot), kdata);		\
}									\
static int name##_update(void *kdata, void *old_kdata UVM_BPF_LINK_ARG) \
{									\
	return uvm_bpf_ops_update((void __rcu **)&(slot), kdata, old_kdata); \
}									\
static int name##_validate(void *kdata)					\
{									\
	return 0;							\
}

UVM_BPF_OPS_CALLBACKS(uvm_gpu_ext, uvm_bpf_prefetch_ops)
UVM_BPF_OPS_CALLBACKS(uvm_fault_policy_ops, uvm_bpf_replay_ops)
UVM_BPF_OPS_CALLBACKS(uvm_evict_ops, uvm_bpf_evict_ops)

/* CFI stubs: the prototypes the BPF trampolines are built against. */

static int stub_test_trigger(const char *buf, int len)
{
	return 0;
}

static int stub_before_compute(uvm_page_index_t page_index,
			       uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
			       uvm_va_block_region_t *max_prefetch_region,
			       uvm_va_block_region_t *result_region)
{
	return UVM_BPF_ACTION_DEFAULT;
}

static int stub_on_tree_iter(uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
			     uvm_va_block_region_t *max_prefetch_region,
			     uvm_va_block_region_t *current_region,
			     unsigned int counter,
			     uvm_va_block_region_t *prefetch_region)
{
	return 0;
}

static int stub_decide_replay(struct uvm_fault_batch_info *batch,
			      int default_policy)
{
	return UVM_BPF_REPLAY_DEFAULT;
}

static int stub_chunk_hook(uvm_gpu_chunk_t *chunk,
			   struct uvm_evict_chunk_info *info,
			   struct list_head *used_list)
{
	return UVM_BPF_EVICT_DEFAULT;
}

static int stub_chunk_release(uvm_gpu_chunk_t *chunk,
			      struct uvm_evict_chunk_info *info)
{
	return 0;
}

static struct uvm_gpu_ext uvm_gpu_ext_cfi_stubs = {
	.uvm_bpf_test_trigger_kfunc = stub_test_trigger,
	.uvm_prefetch_before_compute = stub_before_compute,
	.uvm_prefetch_on_tree_iter = stub_on_tree_iter,
};

static struct uvm_fault_policy_ops uvm_fault_policy_ops_cfi_stubs = {
	.decide_replay = stub_decide_replay,
};

static struct uvm_evict_ops uvm_evict_ops_cfi_stubs = {
	.chunk_activate = stub_chunk_hook,
	.chunk_used = stub_chunk_hook,
	.chunk_release = stub_chunk_release,
	.evict_prepare = stub_chunk_hook,
};

#define UVM_BPF_STRUCT_OPS(type)					\
static struct bpf_struct_ops type##_bpf_ops = {				\
	.verifier_ops = &uvm_bpf_verifier_ops,				\
	.init = uvm_bpf_init,						\
	.init_member = uvm_bpf_init_member,				\
	.reg = type##_reg,						\
	.unreg = type##_unreg,						\
	.update = type##_update,					\
	.validate = type##_validate,					\
	.cfi_stubs = &type##_cfi_stubs,					\
	.owner = THIS_MODULE,						\
	.name = #type,							\
}

UVM_BPF_STRUCT_OPS(uvm_gpu_ext);
UVM_BPF_STRUCT_OPS(uvm_fault_policy_ops);
UVM_BPF_STRUCT_OPS(uvm_evict_ops);

/* Runs the attached prefetch policy's test member (model self-test). */
int uvm_bpf_test_trigger(const char *buf, int len)
{
	struct uvm_gpu_ext *ops;
	int ret = -ENOENT;

	rcu_read_lock();
	ops = rcu_dereference(uvm_bpf_prefetch_ops);
	if (ops && ops->uvm_bpf_test_trigger_kfunc)
		ret = ops->uvm_bpf_test_trigger_kfunc(buf, len);
	rcu_read_unlock();
	return ret;
}

int uvm_bpf_ext_init(void)
{
	int ret;

	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS, &uvm_bpf_kfunc_set);
	if (ret)
		goto fail;
	ret = register_bpf_struct_ops(&uvm_gpu_ext_bpf_ops, uvm_gpu_ext);
	if (ret)
		goto fail;
	ret = register_bpf_struct_ops(&uvm_fault_policy_ops_bpf_ops, uvm_fault_policy_ops);
	if (ret)
		goto fail;
	ret = register_bpf_struct_ops(&uvm_evict_ops_bpf_ops, uvm_evict_ops);
	if (ret)
		goto fail;
	return 0;
fail:
	/* Registered types stay until module unload; the driver runs on. */
	pr_warn("nvidia-uvm: BPF policy hooks unavailable (%d)\n", ret);
	return ret;
}

#else /* !UVM_BPF_EXT_ENABLED */

int uvm_bpf_ext_init(void)
{
	return 0;
}

int uvm_bpf_test_trigger(const char *buf, int len)
{
	return -EOPNOTSUPP;
}

#endif /* UVM_BPF_EXT_ENABLED */
