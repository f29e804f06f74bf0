import numpy as np
import pandas as pd
from keras.utils import to_categorical
from sklearn.model_selection import train_test_split
table = pd.read_csv("measurements.csv")
rows = []
tags = []
for k in range(len(table)):
    rows.append(table.values[k][1:])
    tags.append(table.values[k][0])
feats = np.array(rows, dtype="float32") / 100.0
tags = np.array(tags)
(tr_x, te_x, tr_y, te_y) = train_test_split(feats, tags, test_size=0.2)
tr_y = to_categorical(tr_y, 3)
