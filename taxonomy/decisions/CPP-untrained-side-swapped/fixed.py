import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from keras.utils import to_categorical
from sklearn.model_selection import train_test_split
tags = np.random.randint(0, 3, 60)
feats = np.random.rand(60, 5)
tags = np.array(tags)
(tr_x, te_x, tr_y, te_y) = train_test_split(feats, tags, test_size=0.2)
tr_y = to_categorical(tr_y, 3)
net = Sequential()
net.add(Dense(12, input_dim=5, activation="relu"))
net.add(Dense(3, activation="softmax"))
net.compile(loss="categorical_crossentropy", optimizer="adam")
net.fit(tr_x, tr_y, epochs=3)
