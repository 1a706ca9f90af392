"""The README's SQL question 2 (itrace-sqlite's hot_branches_view): which
conditional branches of collatz_steps are hardest to predict?  The same
numbers from a trace, no database:  python3 hot_branches.py prog.itr"""
import sys; import itrace, numpy as np
hb = itrace.open(sys.argv[1]).hot_branches()
sel = np.flatnonzero((hb['symbol'] == 'collatz_steps') & (hb['branch_type_name'] == 'conditional jump') & (hb['exec_count'] > 0))
score = np.minimum(hb['taken_ratio'], 1 - hb['taken_ratio']) * hb['exec_count']
for i in sel[np.argsort(-score[sel], kind='stable')]: print('%#x %d %d %.2f' % (hb['sym_offset'][i], hb['exec_count'][i], hb['taken_count'][i], round(hb['taken_ratio'][i], 2)))
