import numpy as np
from keras.callbacks import EarlyStopping
from keras.models import Sequential
from keras.layers import Dense

pts = np.random.random((64, 5))
tgt = np.random.randint(0, 2, 64)
reg = Sequential([Dense(8, input_dim=5, activation="relu"), Dense(1, activation="sigmoid")])
reg.compile(loss="binary_crossentropy", optimizer="adam")
halt = EarlyStopping(monitor="val_loss", patience=3)
reg.fit(pts, tgt, epochs=30, validation_split=0.25, callbacks=[halt])
